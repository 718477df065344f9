"""compare through Python gives the dict that compare --out metrics.json writes."""

import json

import pytest

import lidartwin as lt


def test_metrics_equal_the_clis(cli, configs, tmp_path):
    sensor = configs / "sensors/ouster_os0_128.yaml"
    scene = configs / "scenes/street_crossing.yaml"
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    lt.simulate(sensor, scene, a, seed=1, backend="cpu")
    lt.simulate(sensor, scene, b, seed=2, backend="cpu")
    cli("compare", "--real", a, "--sim", b, "--scene", scene, "--out", tmp_path / "cli.json")
    ours = lt.compare(a, b, scene=scene)
    theirs = json.loads((tmp_path / "cli.json").read_text())
    assert ours == theirs
    assert ours["frames"] == 1 and ours["real_points"] > 1000  # something was compared


def test_refused_option_names_its_key(tmp_path):
    with pytest.raises(lt.OptionError) as refused:
        lt.compare(tmp_path / "a.h5", tmp_path / "b.h5", max_angle_deg=-1)
    assert refused.value.option.endswith("max_angle_deg")
