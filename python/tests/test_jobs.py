"""The workflows through Python give what their commands give on the same inputs."""

import filecmp

import pytest

import lidartwin as lt


def same_tree(a, b):
    compared = filecmp.dircmp(a, b)
    assert not compared.left_only and not compared.right_only and not compared.diff_files, (
        compared.left_only, compared.right_only, compared.diff_files)
    for sub in compared.common_dirs:
        same_tree(a / sub, b / sub)


@pytest.mark.skipif(not hasattr(lt._lidartwin, "_labgen"), reason="built without Ceres")
def test_labgen_and_calibrate_as_the_cli(cli, configs, tmp_path):
    unit = configs / "sensors/ouster_os0_128_threshold_lab_example.yaml"
    sheet = configs / "sensors/ouster_os0_128_threshold.yaml"
    cli("labgen", "--profile", unit, "--out", tmp_path / "cli_lab", "--seed", 5, "--backend", "cpu")
    result = lt.labgen(unit, tmp_path / "py_lab", seed=5, backend="cpu")
    assert result["out"].endswith("py_lab")
    same_tree(tmp_path / "cli_lab", tmp_path / "py_lab")
    cli("calibrate", tmp_path / "cli_lab", "--base", sheet, "--out", tmp_path / "cli.yaml",
        "--report", tmp_path / "cli_report")
    lt.calibrate(tmp_path / "cli_lab", sheet, tmp_path / "py.yaml", tmp_path / "py_report")

    def fitted(path):  # the run's date aside, every line
        return [l for l in path.read_text().splitlines() if "date_utc" not in l]

    assert fitted(tmp_path / "cli.yaml") == fitted(tmp_path / "py.yaml")
    # A profile the lab cannot measure is refused before anything is written.
    with pytest.raises(lt.Error, match="detector.type"):
        lt.labgen(configs / "sensors/velodyne_vlp16.yaml", tmp_path / "empty_lab", backend="cpu")
    assert not (tmp_path / "empty_lab").exists()


@pytest.mark.skipif(not hasattr(lt._lidartwin, "_reconstruct"), reason="built without Open3D")
def test_reconstruct_as_the_cli(cli, real_data, tmp_path):
    os1 = real_data / "ouster-sdk"
    args = dict(recording=os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap",
                meta=os1 / "OS-1-128_v2.3.0_1024x10.json",
                poses=os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt")
    cli("reconstruct", args["recording"], "--metadata", args["meta"], "--poses", args["poses"],
        "--pose-at", "end", "--frames", "0,1", "--out", tmp_path / "cli_scene")
    lt.reconstruct(args["recording"], tmp_path / "py_scene", sidecar=args["meta"],
                   poses=args["poses"], pose_at="end", frames=[0, 1])
    same_tree(tmp_path / "cli_scene", tmp_path / "py_scene")


@pytest.mark.skipif(not hasattr(lt._lidartwin, "_resimulate"), reason="built without Open3D")
def test_resimulate_as_the_cli(cli, real_data, configs, tmp_path):
    os1 = real_data / "ouster-sdk"
    recording = os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap"
    meta = os1 / "OS-1-128_v2.3.0_1024x10.json"
    poses = os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt"
    vlp16 = configs / "sensors/velodyne_vlp16.yaml"
    cli("resimulate", recording, "--metadata", meta, "--poses", poses, "--pose-at", "end",
        "--reconstruct-frames", "0,2", "--as", vlp16, "--first-frame", 1, "--out",
        tmp_path / "cli")
    result = lt.resimulate(recording, tmp_path / "py", vlp16, sidecar=meta, poses=poses,
                           pose_at="end", reconstruct_frames=[0, 2], first_frame=1)
    assert result["out"].endswith("py")
    cli_frames = list(lt.read_recording(tmp_path / "cli/sim.h5"))
    py_frames = list(lt.read_recording(tmp_path / "py/sim.h5"))
    assert len(cli_frames) == len(py_frames) == 2
    for a, b in zip(cli_frames, py_frames):
        assert (lt.to_structured(a) == lt.to_structured(b)).all()
    with pytest.raises(lt.OptionError, match="frames"):
        lt.resimulate(recording, tmp_path / "past", vlp16, sidecar=meta, poses=poses,
                      first_frame=1, frames=5)
