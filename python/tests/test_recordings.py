"""Recordings through Python against the CLI's convert, and frames written back."""

import numpy as np
import pytest

import lidartwin as lt
from conftest import assert_same_frames


def test_kitti_bins_read_as_convert_writes_them(cli, real_data, tmp_path):
    scan = real_data / "kitti-odometry-patchworkpp/000000.bin"
    out = tmp_path / "kitti.h5"
    cli("convert", scan, "--out", out)
    frames = list(lt.read_recording(scan))
    assert len(frames) == 1 and len(frames[0]) > 100000
    assert_same_frames(frames, list(lt.read_recording(out)))


def test_ouster_capture_reads_as_convert_writes_it(cli, real_data, tmp_path):
    pcap = real_data / "ouster-sdk/OS-0-128-U1_v2.3.0_1024x10.pcap"
    meta = real_data / "ouster-sdk/OS-0-128-U1_v2.3.0_1024x10.json"
    out = tmp_path / "os0.h5"
    cli("convert", pcap, "--metadata", meta, "--out", out)
    recording = lt.read_recording(pcap, meta)
    assert recording.reader == "ouster-pcap"
    frames = list(recording)
    assert len(frames) >= 1
    assert_same_frames(frames, list(lt.read_recording(out)))
    # And convert through Python writes what the CLI wrote.
    result = lt.convert(pcap, tmp_path / "py.h5", sidecar=meta)
    assert result["frames"] == len(frames)
    assert_same_frames(frames, list(lt.read_recording(tmp_path / "py.h5")))


def test_a_helios_bag_reads_with_its_difops_angles_as_convert_writes_it(cli, real_data, tmp_path):
    """No angle file: the unit's DIFOP gives its 32 lasers, in Python as in the CLI."""
    bag = real_data / "nebula/robosense-helios16p/rosbag2_2023_08_03-11_02_46_0.db3"
    out = tmp_path / "helios.h5"
    cli("convert", bag, "--out", out)
    recording = lt.read_recording(bag)
    assert recording.reader == "robosense-bag"
    frames = list(recording)
    assert max(int(np.max(f.channel)) for f in frames) == 31
    assert_same_frames(frames, list(lt.read_recording(out)))


def test_frames_written_read_back(tmp_path):
    rng = np.random.default_rng(5)
    n = 1000
    fields = {"x": rng.normal(size=n).astype(np.float32),
              "y": rng.normal(size=n).astype(np.float32),
              "z": rng.normal(size=n).astype(np.float32),
              "intensity": rng.uniform(0, 100, n).astype(np.float32),
              "channel": rng.integers(0, 128, n).astype(np.uint16),
              "semantic_class": rng.integers(0, 20, n)}  # int64: converted
    frames = [lt.Frame(fields) for _ in range(2)]
    frames[1].index = 1
    written = lt.write_frames(tmp_path / "out.h5", frames)
    assert [str(p) for p in written] == [str(tmp_path / "out.h5")]
    back = list(lt.read_recording(tmp_path / "out.h5"))
    assert len(back) == 2
    for name in ("x", "y", "z", "intensity", "channel"):
        np.testing.assert_array_equal(back[0].fields()[name], fields[name])
    np.testing.assert_array_equal(back[1].semantic_class, fields["semantic_class"])
    per_frame = lt.write_frames(tmp_path / "cloud.pcd", frames)
    assert [p.name for p in per_frame] == ["cloud_000000.pcd", "cloud_000001.pcd"]
    np.testing.assert_array_equal(next(iter(lt.read_recording(per_frame[0]))).x, fields["x"])


def test_bad_frames_and_files(tmp_path):
    with pytest.raises(ValueError, match="needs the field x"):
        lt.Frame({"y": np.zeros(3)})
    with pytest.raises(ValueError, match="unknown field 'colour'"):
        lt.Frame({"x": np.zeros(3), "y": np.zeros(3), "z": np.zeros(3), "colour": np.zeros(3)})
    with pytest.raises(ValueError, match="2 values for 3 points"):
        lt.Frame({"x": np.zeros(3), "y": np.zeros(2), "z": np.zeros(3)})
    junk = tmp_path / "junk.pcd"
    junk.write_bytes(b"not a point cloud at all")
    with pytest.raises(lt.Error, match="junk.pcd"):
        list(lt.read_recording(junk))
    with pytest.raises(lt.Error, match="extension"):
        lt.write_frames(tmp_path / "out.txt", [])


def test_fields_a_recording_lacks_are_none(real_data):
    frame = next(iter(lt.read_recording(real_data / "kitti-odometry-patchworkpp/000000.bin")))
    assert frame.column is None and frame.semantic_class is None and frame.timestamp is None
    assert "column" in frame.absent_fields and "column" not in frame.fields()
    assert frame.reflectance is not None and len(frame.reflectance) == len(frame)
    # its scan lines are its lasers (KittiBin.ScanLinesAreTheSensorsLasers)
    assert frame.channel is not None and int(frame.channel.max()) == 63


def test_intensity_unit_is_the_recordings(real_data, tmp_path):
    os0 = real_data / "ouster-sdk"
    rec = lt.read_recording(os0 / "OS-0-128-U1_v2.3.0_1024x10.pcap",
                            os0 / "OS-0-128-U1_v2.3.0_1024x10.json")
    frames = list(rec)
    assert rec.intensity_unit == "ouster reflectivity 0-255"
    lt.write_frames(tmp_path / "os0.h5", frames, intensity_unit=rec.intensity_unit)
    assert lt.read_recording(tmp_path / "os0.h5").intensity_unit == rec.intensity_unit
