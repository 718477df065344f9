"""Ctrl-C during a long call: KeyboardInterrupt soon after, nothing half-written, and the next
call works."""

import os
import signal
import threading
import time

import pytest

import lidartwin as lt


def interrupt_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.fixture
def slow(configs):
    profile = configs / "sensors/ouster_os0_128.yaml"
    scene = configs / "scenes/street_crossing.yaml"
    return profile, scene


def test_ctrl_c_stops_a_simulation_between_frames(slow):
    profile, scene = slow
    sim = lt.Simulator(lt.SensorProfile.load(profile), lt.Scene.load(scene), backend="cpu",
                       threads=1)
    start = time.monotonic()
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        sim.simulate(frames=500)  # a minute or more uninterrupted
    timer.join()
    assert time.monotonic() - start < 10
    assert len(sim.simulate()[0]) > 0  # the simulator is still usable


def test_ctrl_c_leaves_no_file_behind(slow, tmp_path):
    profile, scene = slow
    out = tmp_path / "run.h5"
    timer = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        lt.simulate(profile, scene, out, frames=500, backend="cpu", threads=1)
    timer.join()
    assert list(tmp_path.iterdir()) == []


def test_python_keeps_its_own_handler_after(slow):
    profile, scene = slow
    sim = lt.Simulator(lt.SensorProfile.load(profile), lt.Scene.load(scene), backend="cpu")
    sim.simulate()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
