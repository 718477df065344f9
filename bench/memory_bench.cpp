#include "lidartwin/bench/memory_bench.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>

namespace lt::bench {

Status RunChild(const std::filesystem::path& program, ChildRun& run) {
  std::vector<std::string> argv_store = {program.string()};
  argv_store.insert(argv_store.end(), run.args.begin(), run.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return Error{"cannot start " + program.string() + ": " + std::strerror(errno)};
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (::wait4(pid, &status, 0, &usage) < 0) {
    return Error{"cannot wait for " + program.string() + ": " + std::strerror(errno)};
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.max_rss_kib = static_cast<uint64_t>(usage.ru_maxrss);  // KiB on Linux
  return {};
}

namespace {

uint32_t Swap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

// A Velodyne data packet's own timestamp (u32 microseconds past the hour at payload byte 1200;
// VLP-16 manual sec. 9) moved `advance_us` on, so a repeated copy reads as later packets, not
// as the capture repeating itself (which the reader drops as late). Other records are left.
void AdvanceVelodyneTimestamp(std::string& record, uint64_t advance_us) {
  constexpr size_t kRecordHeader = 16, kEthernet = 14, kUdp = 8, kPayload = 1206;
  if (record.size() < kRecordHeader + kEthernet + 20 + kUdp + kPayload) return;
  const auto* b = reinterpret_cast<const uint8_t*>(record.data()) + kRecordHeader;
  if (b[12] != 0x08 || b[13] != 0x00 || (b[14] >> 4) != 4 || b[14 + 9] != 17) return;
  const size_t udp = kEthernet + 4 * (b[14] & 0x0f);
  if (kRecordHeader + udp + kUdp + kPayload > record.size()) return;
  const unsigned port = b[udp + 2] << 8 | b[udp + 3];
  const unsigned length = b[udp + 4] << 8 | b[udp + 5];
  if (port != 2368 || length != kUdp + kPayload) return;
  char* stamp = record.data() + kRecordHeader + udp + kUdp + 1200;
  uint32_t us;
  std::memcpy(&us, stamp, 4);
  us = static_cast<uint32_t>((us + advance_us) % 3600000000ull);
  std::memcpy(stamp, &us, 4);
}

}  // namespace

Status WriteRepeatedCapture(const std::filesystem::path& in, const std::filesystem::path& out,
                            uint32_t repeats) {
  std::ifstream f(in, std::ios::binary);
  if (!f) return Error{in.string() + ": cannot open"};
  const std::string bytes((std::istreambuf_iterator<char>(f)), {});
  if (bytes.size() < 24) return Error{in.string() + ": not a pcap file (too short)"};
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), 4);
  const bool swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
  if (!swap && magic != 0xa1b2c3d4u && magic != 0xa1b23c4du) {
    return Error{in.string() + ": not a classic pcap file"};
  }
  const auto get = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return swap ? Swap32(v) : v;
  };
  // Whole records (offset of the 16-byte header, and its capture second).
  std::vector<std::pair<size_t, uint32_t>> records;
  size_t at = 24;
  while (at + 16 <= bytes.size()) {
    const uint32_t len = get(at + 8);
    if (at + 16 + len > bytes.size()) break;
    records.emplace_back(at, get(at));
    at += 16 + len;
  }
  if (records.empty()) return Error{in.string() + ": no whole records"};
  const uint32_t span_s = records.back().second - records.front().second + 1;
  const std::filesystem::path temp = out.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream o(temp, std::ios::binary);
    o.write(bytes.data(), 24);
    std::string record;
    for (uint32_t r = 0; r < repeats; ++r) {
      for (size_t k = 0; k < records.size(); ++k) {
        const size_t begin = records[k].first;
        const size_t end = k + 1 < records.size() ? records[k + 1].first : at;
        record.assign(bytes, begin, end - begin);
        const uint32_t t = records[k].second + r * span_s;  // past the previous copy's end
        const uint32_t stored = swap ? Swap32(t) : t;
        std::memcpy(record.data(), &stored, 4);
        AdvanceVelodyneTimestamp(record, uint64_t{r} * span_s * 1000000);
        o.write(record.data(), static_cast<std::streamsize>(record.size()));
      }
    }
    o.flush();
    if (!o) {
      std::filesystem::remove(temp);
      return Error{out.string() + ": write failed: " + std::strerror(errno)};
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, out, ec);
  if (ec) return Error{out.string() + ": " + ec.message()};
  return {};
}

}  // namespace lt::bench
