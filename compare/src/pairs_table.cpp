#include "lidartwin/compare/pairs_table.h"

#include <fmt/core.h>
#include <cerrno>
#include <cstring>

namespace lt::compare {

PairsTableWriter::PairsTableWriter(AtomicOutput output) : output_(std::move(output)) {}

Expected<PairsTableWriter> PairsTableWriter::Open(const std::filesystem::path& path) {
  if (Status s = CheckOutputTarget(path); !s.ok()) return s.error();
  PairsTableWriter w{AtomicOutput(path)};
  w.stream_ = std::make_unique<std::ofstream>(w.output_.temp_path(), std::ios::binary);
  if (!*w.stream_) return Error{fmt::format("{}: cannot be written", path.string())};
  *w.stream_ << "pair,real_frame,sim_frame,real_point,sim_point,range_error_m,intensity_error\n";
  return w;
}

Status PairsTableWriter::Add(size_t pair, const CompareInputs& in, const FramePairing& p) {
  const uint32_t real_frame = in.RealFrameOfPair(pair), sim_frame = in.SimFrameOfPair(pair);
  std::vector<bool> real_paired(p.real.size()), sim_paired(p.sim.size());
  const bool intensities =
      p.real.intensity.size() == p.real.size() && p.sim.intensity.size() == p.sim.size();
  std::string rows;
  for (auto [ri, si] : p.association.pairs) {
    real_paired[ri] = sim_paired[si] = true;
    const double range_error = double(p.sim.range_m[si]) - double(p.real.range_m[ri]);
    rows += fmt::format("{},{},{},{},{},{:.6g},", pair, real_frame, sim_frame, p.real_in_file[ri],
                        p.sim_in_file[si], range_error);
    if (intensities)
      rows += fmt::format("{:.6g}", double(p.sim.intensity[si]) - double(p.real.intensity[ri]));
    rows += '\n';
  }
  for (size_t i = 0; i < p.real.size(); ++i)
    if (!real_paired[i])
      rows += fmt::format("{},{},{},{},,,\n", pair, real_frame, sim_frame, p.real_in_file[i]);
  for (size_t i = 0; i < p.sim.size(); ++i)
    if (!sim_paired[i])
      rows += fmt::format("{},{},{},,{},,\n", pair, real_frame, sim_frame, p.sim_in_file[i]);
  *stream_ << rows;
  if (!*stream_)
    return Error{
        fmt::format("{}: write failed: {}", output_.target().string(), std::strerror(errno))};
  return {};
}

Status PairsTableWriter::Commit() {
  stream_->close();
  if (!*stream_)
    return Error{
        fmt::format("{}: write failed: {}", output_.target().string(), std::strerror(errno))};
  return output_.Commit();
}

}  // namespace lt::compare
