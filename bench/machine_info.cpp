#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "lidartwin/bench/cpu_bench.h"

namespace lt::bench {

MachineInfo ReadMachineInfo() {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) m.host = host;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      m.cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  m.hardware_threads = std::thread::hardware_concurrency();
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.date_utc = date;
  return m;
}

}  // namespace lt::bench
