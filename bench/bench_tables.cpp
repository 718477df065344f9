#include "lidartwin/bench/bench_tables.h"

#include <fmt/core.h>

#include <tuple>

#include "lidartwin/bench/bvh_quality.h"

namespace lt::bench {
namespace {

nlohmann::json TreeJson(const SceneFigures::TreeQuality& q) {
  return {{"sah_cost", q.sah},
          {"coherent_nodes_per_ray", q.coherent_nodes},
          {"coherent_box_tests_per_ray", BoxTestsPerRay(q.coherent_nodes)},
          {"coherent_triangle_tests_per_ray", q.coherent_triangles},
          {"coherent_bytes_per_ray", BytesPerRay(q.coherent_nodes, q.coherent_triangles)},
          {"random_nodes_per_ray", q.random_nodes},
          {"random_box_tests_per_ray", BoxTestsPerRay(q.random_nodes)},
          {"random_triangle_tests_per_ray", q.random_triangles},
          {"random_bytes_per_ray", BytesPerRay(q.random_nodes, q.random_triangles)},
          {"node_bytes", sizeof(physics::WideNode)},
          {"triangle_bytes", sizeof(physics::WideTriangle)}};
}

nlohmann::json RaysJson(const bench::RayFigures& r, double lbvh, double sah) {
  nlohmann::json j = RayFiguresJson(r);
  j["gpu_lbvh_rays_per_s"] = lbvh;
  j["gpu_binned_sah_rays_per_s"] = sah;
  return j;
}

}  // namespace

nlohmann::json RayFiguresJson(const RayFigures& r) {
  return {{"rays", r.rays},
          {"gpu_rays_per_s", r.gpu_rays_per_s},
          {"embree_rays_per_s", r.embree_rays_per_s},
          {"embree_best_rays_per_s", r.embree_best_rays_per_s},
          {"gpu_hits", r.gpu_hits},
          {"embree_hits", r.embree_hits},
          {"embree_best_hits", r.embree_best_hits},
          {"gpu_embree_best_same_triangle", r.gpu_embree_best_same},
          {"gpu_binned_sah_tree_differs", r.gpu_trees_differ}};
}

std::string CpuBenchTable(const MachineInfo& machine, const std::string& scene_file,
                          uint64_t triangles, const std::string& sensor_name,
                          const CpuBenchResult& r) {
  std::string text;
  text += fmt::format("machine: {} ({}, {} hardware threads), {}\n", machine.host, machine.cpu,
                      machine.hardware_threads, machine.date_utc);
  text += fmt::format("scene:   {} ({} triangles), sensor {} ({} beams/frame)\n", scene_file,
                      triangles, sensor_name, r.rays_per_frame);
  text += fmt::format("{:<28} {:>14}\n", "figure", "value");
  text += fmt::format("{:<28} {:>14}\n", "cpu_threads", r.threads);
  text += fmt::format("{:<28} {:>14.3f}\n", "cpu_frame_ms (median)", r.frame_ms_median);
  text += fmt::format("{:<28} {:>14.3f}\n", "cpu_frame_ms (min)", r.frame_ms_min);
  text += fmt::format("{:<28} {:>14.4g}\n", "cpu_rays_per_s", r.rays_per_s);
  text += fmt::format("{:<28} {:>14.4g}\n", "cpu_points_per_s", r.points_per_s);
  text += fmt::format("{:<28} {:>14}\n", "points_per_frame", r.points_per_frame);
  return text;
}

std::string GpuBenchTables(const GpuBenchReport& gpu) {
  std::string text;
  if (!gpu.why_no_gpu.empty()) return fmt::format("gpu:     not measured: {}\n", gpu.why_no_gpu);
  text += fmt::format("gpu:     {}\n", gpu.device);
  text += fmt::format("{:>10} {:>9} {:>12} {:>12} {:>8} {:>12} {:>12} {:>8} {:>9} {:>9} {:>9}\n",
                      "triangles", "build_ms", "coh_gpu/s", "coh_embree/s", "ratio", "rnd_gpu/s",
                      "rnd_embree/s", "ratio", "frame_ms", "kernel_ms", "cpu_ms");
  for (const auto& s : gpu.scenes) {
    auto ratio = [](const bench::RayFigures& r) {
      return r.embree_rays_per_s > 0 ? r.gpu_rays_per_s / r.embree_rays_per_s : 0.0;
    };
    text += fmt::format(
        "{:>10} {:>9.3f} {:>12.4g} {:>12.4g} {:>8.1f} {:>12.4g} {:>12.4g} {:>8.1f} "
        "{:>9.3f} {:>9.3f} {:>9.2f}\n",
        s.triangles, s.ploc_build_ms, s.coherent.gpu_rays_per_s, s.coherent.embree_rays_per_s,
        ratio(s.coherent), s.random.gpu_rays_per_s, s.random.embree_rays_per_s, ratio(s.random),
        s.frame_ms_total, s.frame_ms_kernel, s.cpu_frame_ms);
  }
  // Embree at its best beside the GPU (issue 14), and Embree as the CPU backend calls it.
  text += fmt::format("{:>10} {:>12} {:>14} {:>8} {:>12} {:>14} {:>8}\n", "triangles", "coh_gpu/s",
                      "coh_best_cpu/s", "ratio", "rnd_gpu/s", "rnd_best_cpu/s", "ratio");
  for (const auto& s : gpu.scenes) {
    auto best = [](const bench::RayFigures& r) {
      return r.embree_best_rays_per_s > 0 ? r.gpu_rays_per_s / r.embree_best_rays_per_s : 0.0;
    };
    text += fmt::format("{:>10} {:>12.4g} {:>14.4g} {:>8.1f} {:>12.4g} {:>14.4g} {:>8.1f}\n",
                        s.triangles, s.coherent.gpu_rays_per_s, s.coherent.embree_best_rays_per_s,
                        best(s.coherent), s.random.gpu_rays_per_s, s.random.embree_best_rays_per_s,
                        best(s.random));
  }
  // Tree quality against a binned-SAH tree (issue 14: SAH within 10 %): SAH cost, node
  // fetches of the wide tree the rays traverse (64 bytes, four box tests each) and triangle
  // tests per ray.
  text += fmt::format("trees:      {:>10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
                      "triangles", "tree", "sah", "coh_nodes", "coh_tris", "coh_bytes", "rnd_nodes",
                      "rnd_tris", "rnd_bytes");
  for (const auto& s : gpu.scenes)
    for (const auto& [name, q] :
         {std::pair{"lbvh", s.lbvh_tree}, std::pair{"ploc", s.ploc_tree},
          std::pair{"gpu_sah", s.sah_tree}, std::pair{"binned", s.binned_tree}})
      text += fmt::format(
          "            {:>10} {:>8} {:>8.2f} {:>9.1f} {:>9.1f} {:>9.0f} {:>9.1f} {:>9.1f} "
          "{:>9.0f}\n",
          s.triangles, name, q.sah, q.coherent_nodes, q.coherent_triangles,
          bench::BytesPerRay(q.coherent_nodes, q.coherent_triangles), q.random_nodes,
          q.random_triangles, bench::BytesPerRay(q.random_nodes, q.random_triangles));
  text += fmt::format("8 sub-rays: {:>10} {:>9} {:>9} {:>9}\n", "triangles", "frame_ms",
                      "kernel_ms", "cpu_ms");
  for (const auto& s : gpu.scenes) {
    text += fmt::format("            {:>10} {:>9.3f} {:>9.3f} {:>9.2f}\n", s.triangles,
                        s.frame8_ms_total, s.frame8_ms_kernel, s.cpu_frame8_ms);
  }
  text += fmt::format(
      "lab scene, ouster_os0_128_threshold.yaml: frame {:.3f} ms, kernel {:.3f} ms "
      "(sub-rays {:.3f} ms), CPU {:.2f} ms\n",
      gpu.lab_threshold_ms_total, gpu.lab_threshold_ms_kernel, gpu.lab_threshold_ms_signal,
      gpu.lab_cpu_threshold_ms);
  text += fmt::format(
      "lab scene, OS0-128 waveform (8 sub-rays, 2048 samples): frame {:.3f} ms, kernel {:.3f} ms "
      "(sub-rays {:.3f} ms), CPU {:.1f} ms\n",
      gpu.lab_waveform_ms_total, gpu.lab_waveform_ms_kernel, gpu.lab_waveform_ms_signal,
      gpu.lab_cpu_waveform_ms);
  text += fmt::format("waveform chain + ranging: {:>10} {:>8} {:>9} {:>9} {:>12}\n", "noise",
                      "samples", "beams", "ms", "beams/s");
  for (const auto& w : gpu.waveform_chain)
    text += fmt::format("                          {:>10} {:>8} {:>9} {:>9.3f} {:>12.4g}\n",
                        w.noise, w.samples, w.beams, w.ms, w.beams_per_s);
  text +=
      fmt::format("waveform detector, OS0-128 8 sub-rays 2048 samples: {:>10} {:>9} {:>9} {:>9}\n",
                  "triangles", "frame_ms", "kernel_ms", "sub_rays");
  for (const auto& s : gpu.scenes)
    text += fmt::format(
        "                                                    {:>10} {:>9.3f} {:>9.3f} "
        "{:>9.3f}\n",
        s.triangles, s.waveform_ms_total, s.waveform_ms_kernel, s.waveform_ms_signal);
  text += fmt::format(
      "threshold detector (OS0-128 16 sub-rays dual | 16,384-beam bloom, 64 of 68x68):\n");
  text += fmt::format("            {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "triangles",
                      "frame_ms", "kernel_ms", "cpu_ms", "bloom_ms", "kernel_ms", "cpu_ms");
  for (const auto& s : gpu.scenes) {
    text +=
        fmt::format("            {:>10} {:>9.3f} {:>9.3f} {:>9.2f} {:>9.3f} {:>9.3f} {:>9.2f}\n",
                    s.triangles, s.threshold_ms_total, s.threshold_ms_kernel, s.cpu_threshold_ms,
                    s.bloom_ms_total, s.bloom_ms_kernel, s.cpu_bloom_ms);
  }
  text += fmt::format("  of the kernel time, tracing the sub-rays (the rest: echo detection):\n");
  for (const auto& s : gpu.scenes) {
    text += fmt::format("            {:>10} {:>9} {:>9.3f} {:>9} {:>9} {:>9.3f}\n", s.triangles, "",
                        s.threshold_ms_signal, "", "", s.bloom_ms_signal);
  }
  text += fmt::format(
      "  weather (OS0-128 8 sub-rays, fog 50 m + rain 25 mm/h + snow 1 mm/h):\n"
      "            {:>10} {:>9} {:>9} {:>9} {:>9}\n",
      "triangles", "frame_ms", "kernel_ms", "sub_rays", "cpu_ms");
  for (const auto& s : gpu.scenes) {
    text +=
        fmt::format("            {:>10} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.2f}\n", s.triangles,
                    s.weather_ms_total, s.weather_ms_kernel, s.weather_ms_signal, s.cpu_weather_ms);
  }
  text += fmt::format("  raster gather (OS0 1 mrad | bloom 1.5 mrad):\n");
  for (const auto& s : gpu.scenes) {
    text += fmt::format("            {:>10} {:>9.3f} {:>9.3f} {:>9} {:>9.3f} {:>9.3f}\n",
                        s.triangles, s.threshold_raster_ms_total, s.threshold_raster_ms_kernel, "-",
                        s.bloom_raster_ms_total, s.bloom_raster_ms_kernel);
  }
  text += fmt::format("binned-SAH GPU trees: {:>10} {:>9} {:>9} {:>12} {:>12} {:>8}\n", "triangles",
                      "build_ms", "depth_ms", "coh_sah/s", "rnd_sah/s", "differ");
  for (const auto& s : gpu.scenes) {
    text += fmt::format(
        "                      {:>10} {:>9.3f} {:>9.3f} {:>12.4g} {:>12.4g} {:>8}\n", s.triangles,
        s.sah_build_ms, s.sah_depthwise_build_ms, s.sah_coherent_rays_per_s,
        s.sah_random_rays_per_s, s.coherent.gpu_trees_differ + s.random.gpu_trees_differ);
  }
  text += fmt::format("coherent rays to the sensor's range: {:>10} {:>12} {:>12}\n", "triangles",
                      "ploc/s", "binned_sah/s");
  for (const auto& s : gpu.scenes) {
    text += fmt::format("                                     {:>10} {:>12.4g} {:>12.4g}\n",
                        s.triangles, s.ploc_coherent_in_range_rays_per_s,
                        s.sah_coherent_in_range_rays_per_s);
  }
  // The figures above are on PLOC trees (the simulator's); its refit, and the LBVH trees.
  text += fmt::format("PLOC refit, LBVH trees: {:>10} {:>9} {:>9} {:>12} {:>12}\n", "triangles",
                      "refit_ms", "lbvh_ms", "coh_lbvh/s", "rnd_lbvh/s");
  for (const auto& s : gpu.scenes) {
    text += fmt::format("                        {:>10} {:>9.3f} {:>9.3f} {:>12.4g} {:>12.4g}\n",
                        s.triangles, s.refit_ms, s.bvh_build_ms, s.lbvh_coherent_rays_per_s,
                        s.lbvh_random_rays_per_s);
  }
  return text;
}

nlohmann::json BenchJson(const MachineInfo& machine, const std::string& scene_file,
                         uint64_t triangles, const std::string& sensor_name,
                         const CpuBenchResult& r, const GpuBenchReport& gpu) {
  nlohmann::json j;
  if (gpu.why_no_gpu.empty()) {
    j["gpu"]["device"] = gpu.device;
    j["gpu"]["lab_threshold_os0"] = {{"frame_ms_total", gpu.lab_threshold_ms_total},
                                     {"frame_ms_kernel", gpu.lab_threshold_ms_kernel},
                                     {"frame_ms_sub_ray_stage", gpu.lab_threshold_ms_signal},
                                     {"cpu_frame_ms", gpu.lab_cpu_threshold_ms}};
    j["gpu"]["lab_waveform_os0"] = {{"frame_ms_total", gpu.lab_waveform_ms_total},
                                    {"frame_ms_kernel", gpu.lab_waveform_ms_kernel},
                                    {"frame_ms_sub_ray_stage", gpu.lab_waveform_ms_signal},
                                    {"cpu_frame_ms", gpu.lab_cpu_waveform_ms}};
    for (const auto& w : gpu.waveform_chain)
      j["gpu"]["waveform_chain"].push_back({{"noise", w.noise},
                                            {"samples", w.samples},
                                            {"beams", w.beams},
                                            {"ms", w.ms},
                                            {"beams_per_s", w.beams_per_s}});
    for (const auto& s : gpu.scenes) {
      const auto rays = RayFiguresJson;
      j["gpu"]["scenes"].push_back(
          {{"triangles", s.triangles},
           {"trees",
            {{"lbvh", TreeJson(s.lbvh_tree)},
             {"ploc", TreeJson(s.ploc_tree)},
             {"gpu_binned_sah", TreeJson(s.sah_tree)},
             {"binned_sah_reference", TreeJson(s.binned_tree)},
             {"binned_sah_host_build_ms", s.binned_build_host_ms}}},
           {"bvh_build_ms", s.ploc_build_ms},
           {"refit_ms", s.refit_ms},
           {"gpu_binned_sah",
            {{"bvh_build_ms", s.sah_build_ms},
             {"bvh_build_ms_subtrees_depthwise", s.sah_depthwise_build_ms},
             {"coherent_gpu_rays_per_s", s.sah_coherent_rays_per_s},
             {"coherent_in_range_gpu_rays_per_s", s.sah_coherent_in_range_rays_per_s},
             {"random_gpu_rays_per_s", s.sah_random_rays_per_s}}},
           {"coherent_in_range_gpu_rays_per_s", s.ploc_coherent_in_range_rays_per_s},
           {"lbvh",
            {{"bvh_build_ms", s.bvh_build_ms},
             {"coherent_gpu_rays_per_s", s.lbvh_coherent_rays_per_s},
             {"random_gpu_rays_per_s", s.lbvh_random_rays_per_s}}},
           {"coherent_os0_8_subrays", rays(s.coherent)},
           {"random", rays(s.random)},
           {"frame_ms_os0_1_subray_total", s.frame_ms_total},
           {"frame_ms_os0_1_subray_kernel", s.frame_ms_kernel},
           {"cpu_frame_ms_os0", s.cpu_frame_ms},
           {"frame_ms_os0_8_subrays_total", s.frame8_ms_total},
           {"frame_ms_os0_8_subrays_kernel", s.frame8_ms_kernel},
           {"cpu_frame_ms_os0_8_subrays", s.cpu_frame8_ms},
           {"waveform_os0_8_subrays_2048_samples",
            {{"frame_ms_total", s.waveform_ms_total},
             {"frame_ms_kernel", s.waveform_ms_kernel},
             {"frame_ms_sub_ray_stage", s.waveform_ms_signal}}},
           {"threshold_os0_16_subrays_dual",
            {{"frame_ms_total", s.threshold_ms_total},
             {"frame_ms_kernel", s.threshold_ms_kernel},
             {"frame_ms_sub_ray_stage", s.threshold_ms_signal},
             {"cpu_frame_ms", s.cpu_threshold_ms}}},
           {"bloom_16384_beams_68x68_kernel_64_subrays",
            {{"frame_ms_total", s.bloom_ms_total},
             {"frame_ms_kernel", s.bloom_ms_kernel},
             {"frame_ms_sub_ray_stage", s.bloom_ms_signal},
             {"cpu_frame_ms", s.cpu_bloom_ms}}},
           {"weather_os0_8_subrays_fog50_rain25_snow1",
            {{"frame_ms_total", s.weather_ms_total},
             {"frame_ms_kernel", s.weather_ms_kernel},
             {"frame_ms_sub_ray_stage", s.weather_ms_signal},
             {"cpu_frame_ms", s.cpu_weather_ms}}},
           {"raster_gather",
            {{"threshold_os0_frame_ms_total", s.threshold_raster_ms_total},
             {"threshold_os0_frame_ms_kernel", s.threshold_raster_ms_kernel},
             {"bloom_frame_ms_total", s.bloom_raster_ms_total},
             {"bloom_frame_ms_kernel", s.bloom_raster_ms_kernel}}}});
    }
  } else {
    j["gpu"]["not_measured"] = gpu.why_no_gpu;
  }
  j["machine"] = {{"host", machine.host},
                  {"cpu", machine.cpu},
                  {"hardware_threads", machine.hardware_threads},
                  {"date_utc", machine.date_utc}};
  j["scene"] = {{"file", scene_file}, {"triangles", triangles}};
  j["sensor"] = {{"name", sensor_name}, {"beams_per_frame", r.rays_per_frame}};
  j["cpu"] = {{"threads", r.threads},
              {"repeats", r.repeats},
              {"frame_ms_median", r.frame_ms_median},
              {"frame_ms_min", r.frame_ms_min},
              {"rays_per_s", r.rays_per_s},
              {"points_per_s", r.points_per_s},
              {"points_per_frame", r.points_per_frame}};
  return j;
}

std::string SceneBenchTable(const std::string& scene_file, const physics::Vec3<double>& sensor,
                            const SceneTraceReport& r) {
  std::string text;
  text += fmt::format(
      "scene:   {} ({} triangles), OS0-128 x 8 sub-rays from ({}, {}, {}) m, {} random rays\n",
      scene_file, r.triangles, sensor.x, sensor.y, sensor.z, r.random.rays);
  text += fmt::format("gpu:     {}\n",
                      r.why_no_gpu.empty() ? r.device : "not measured: " + r.why_no_gpu);
  text +=
      fmt::format("{:<10} {:>12} {:>12} {:>12} {:>16} {:>14} {:>10} {:>10}\n", "rays", "gpu/s",
                  "gpu_lbvh/s", "gpu_sah/s", "embree_best/s", "embree_cpu/s", "hits", "same_tri");
  for (const auto& [name, f, lbvh, sah] :
       {std::tuple{"coherent", r.coherent, r.lbvh_coherent_rays_per_s, r.sah_coherent_rays_per_s},
        std::tuple{"random", r.random, r.lbvh_random_rays_per_s, r.sah_random_rays_per_s}})
    text += fmt::format("{:<10} {:>12.4g} {:>12.4g} {:>12.4g} {:>16.4g} {:>14.4g} {:>10} {:>10}\n",
                        name, f.gpu_rays_per_s, lbvh, sah, f.embree_best_rays_per_s,
                        f.embree_rays_per_s, f.embree_best_hits, f.gpu_embree_best_same);
  return text;
}

nlohmann::json SceneBenchJson(const std::string& scene_file, const std::vector<double>& position,
                              const SceneTraceReport& r) {
  return {{"scene", scene_file},
          {"triangles", r.triangles},
          {"sensor_position_m", position},
          {"gpu", r.why_no_gpu.empty() ? r.device : ""},
          {"coherent_os0_8_subrays",
           RaysJson(r.coherent, r.lbvh_coherent_rays_per_s, r.sah_coherent_rays_per_s)},
          {"random", RaysJson(r.random, r.lbvh_random_rays_per_s, r.sah_random_rays_per_s)}};
}

}  // namespace lt::bench
