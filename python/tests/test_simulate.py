"""Simulator through Python against the CLI's simulate on the same inputs: the same points."""

import threading
import time

import numpy as np
import pytest

import lidartwin as lt
from conftest import assert_same_frames


def frames_of(path):
    return list(lt.read_recording(path))


def test_frames_equal_the_clis(cli, configs, tmp_path):
    sensor = configs / "sensors/ouster_os0_128.yaml"
    scene = configs / "scenes/street_crossing.yaml"
    out = tmp_path / "cli.h5"
    cli("simulate", "--sensor", sensor, "--scene", scene, "--frames", 2, "--seed", 7,
        "--out", out)
    sim = lt.Simulator(lt.SensorProfile.load(sensor), lt.Scene.load(scene), backend="cpu", seed=7)
    frames = sim.simulate(frames=2)
    assert all(len(f) > 1000 for f in frames)
    assert_same_frames(frames, frames_of(out))


def test_moving_sensor_equals_the_clis_trajectory(cli, configs, tmp_path):
    sensor = configs / "sensors/velodyne_vlp16.yaml"
    scene = configs / "scenes/street_crossing.yaml"
    poses = [np.eye(4), np.eye(4)]
    poses[1][0, 3] = 2.0  # 2 m along x in 1 s
    traj = lt.Trajectory([0.0, 1.0], poses)
    yaml = tmp_path / "trajectory.yaml"
    yaml.write_text("poses:\n"
                    "  - {time_s: 0.0, position_m: [0, 0, 0], rotation_deg: [0, 0, 0]}\n"
                    "  - {time_s: 1.0, position_m: [2, 0, 0], rotation_deg: [0, 0, 0]}\n")
    out = tmp_path / "cli.h5"
    cli("simulate", "--sensor", sensor, "--scene", scene, "--trajectory", yaml, "--frames", 3,
        "--out", out)
    sim = lt.Simulator(lt.SensorProfile.load(sensor), lt.Scene.load(scene), backend="cpu")
    assert_same_frames(sim.simulate(trajectory=traj, frames=3), frames_of(out))
    # The trajectory file through Python loads to the same frames too.
    assert_same_frames(sim.simulate(trajectory=lt.Trajectory.load(yaml), frames=3),
                       frames_of(out))


def test_a_pose_moves_the_points(configs):
    sim = lt.Simulator(lt.SensorProfile.load(configs / "sensors/velodyne_vlp16.yaml"),
                       lt.Scene.load(configs / "scenes/lab_plates.yaml"), backend="cpu")
    here = sim.simulate(np.eye(4))[0]
    turned = np.eye(4)
    turned[:2, :2] = [[0, -1], [1, 0]]  # 90 degrees about z
    there = sim.simulate(turned)[0]
    assert len(here) > 0 and len(there) > 0
    assert not np.array_equal(here.range, there.range[: len(here)]) or len(here) != len(there)
    np.testing.assert_allclose(there.pose_start, turned, atol=1e-12)


def test_same_seed_same_frames(configs):
    p = lt.SensorProfile.load(configs / "sensors/ouster_os0_128.yaml")
    s = lt.Scene.load(configs / "scenes/street_crossing.yaml")
    a = lt.Simulator(p, s, backend="cpu", seed=11).simulate()[0]
    b = lt.Simulator(p, s, backend="cpu", seed=11, threads=1).simulate()[0]
    assert_same_frames([a], [b])


def test_fields_are_views_of_the_frame(configs):
    sim = lt.Simulator(lt.SensorProfile.load(configs / "sensors/velodyne_vlp16.yaml"),
                       lt.Scene.load(configs / "scenes/lab_plates.yaml"), backend="cpu")
    frame = sim.simulate()[0]
    x = frame.x
    assert x.base is not None  # a view, not a copy
    x[0] = 1234.5
    assert frame.x[0] == np.float32(1234.5)
    del frame  # the array keeps the frame alive
    assert x[0] == np.float32(1234.5)
    assert lt.Frame.units()["range"] == "m"


def test_labels_and_structured_array(configs):
    sim = lt.Simulator(lt.SensorProfile.load(configs / "sensors/ouster_os0_128.yaml"),
                       lt.Scene.load(configs / "scenes/street_crossing.yaml"), backend="cpu")
    frame = sim.simulate()[0]
    assert frame.semantic_class.dtype == np.uint16 and frame.semantic_class.max() > 0
    assert frame.material_id.dtype == np.uint16
    table = lt.to_structured(frame)
    assert table.shape == (len(frame),)
    np.testing.assert_array_equal(table["range"], frame.range)


def test_other_python_threads_run_while_it_simulates(configs):
    sim = lt.Simulator(lt.SensorProfile.load(configs / "sensors/ouster_os0_128.yaml"),
                       lt.Scene.load(configs / "scenes/street_crossing.yaml"), backend="cpu",
                       threads=1)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.monotonic()
    sim.simulate(frames=3)
    end = time.monotonic()
    stop.set()
    counter.join()
    during = [t for t in ticks if start < t < end]
    # With the GIL held the counter would not tick at all while C++ works; released, it ticks
    # about every millisecond of the call (here hundreds of them).
    assert end - start > 0.05
    assert len(during) >= 20


def test_bad_arguments_raise_with_our_message(configs, tmp_path):
    with pytest.raises(lt.Error, match="cannot open sensor profile"):
        lt.SensorProfile.load(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nwavelength_nm: [\n")
    with pytest.raises(lt.Error, match="bad.yaml"):
        lt.SensorProfile.load(bad)
    p = lt.SensorProfile.load(configs / "sensors/velodyne_vlp16.yaml")
    s = lt.Scene.load(configs / "scenes/lab_plates.yaml")
    with pytest.raises(lt.OptionError) as refused:
        lt.Simulator(p, s, backend="quantum")
    assert refused.value.option == "backend" and isinstance(refused.value, ValueError)
    sim = lt.Simulator(p, s, backend="cpu")
    with pytest.raises(lt.OptionError, match="frames 0"):
        sim.simulate(frames=0)
    with pytest.raises(ValueError, match="4x4"):
        sim.simulate(np.eye(3))
    with pytest.raises(ValueError, match="not finite"):
        sim.simulate(np.full((4, 4), np.nan))
    with pytest.raises(TypeError):
        lt.Simulator(p, None)
