"""scripts/return-decision-bound.py (issue 41): the scores as compare counts them, the row
neighbours, and the decision tables learned from other folds and from the fold itself."""

import importlib.util

import numpy as np
import pytest

from conftest import SOURCE_DIR


@pytest.fixture(scope="module")
def bound():
    spec = importlib.util.spec_from_file_location(
        "return_decision_bound", SOURCE_DIR / "scripts" / "return-decision-bound.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scores_are_drop_accuracy_and_jaccard_agreement(bound):
    predicted = np.array([1, 1, 0, 0, 1], bool)
    truth = np.array([1, 0, 1, 0, 1], bool)
    drop_accuracy, agreement = bound.scores(predicted, truth)
    assert drop_accuracy == pytest.approx(3 / 5)  # both or neither: beams 0, 3, 4
    assert agreement == pytest.approx(2 / 4)  # both returned: 0, 4; either: 0, 1, 2, 4


def test_empty_row_neighbours_count_the_columns_either_side_round_the_revolution(bound):
    returned = np.array([[1, 0, 1, 1], [0, 0, 0, 1]], bool)
    expected = np.array([[1, 0, 1, 0], [1, 2, 1, 2]])
    np.testing.assert_array_equal(bound.empty_row_neighbours(returned), expected)


def test_cell_keys_name_every_combination_once_and_refuse_what_does_not_fit(bound):
    a = np.array([[0, 1, 2, 2]])
    b = np.array([[7, 7, 0, 7]])
    keys = bound.cell_keys([a, b], 2)
    assert keys.tolist() == [7, 16 + 7, 32, 32 + 7]
    assert len(set(bound.cell_keys([a, b], 1).tolist())) == 3
    with pytest.raises(ValueError):
        bound.cell_keys([a * 8, b], 2)
    with pytest.raises(ValueError):
        bound.cell_keys([a] * 16, 16)


def test_a_cell_is_decided_as_most_of_its_beams_and_a_tie_as_empty(bound):
    keys = np.array([0, 0, 0, 1, 1, 2])
    truth = np.array([1, 1, 0, 0, 1, 0], bool)
    assert bound.majority_table(keys, truth) == {0: True, 1: False, 2: False}


def synthetic_fold(bound, rng, hole_returns):
    """Sky in the upper half (nothing returns); below, a held-out frame that returns but where
    a coin says not (5 %), and a simulation with one-beam holes between two returns (every
    fourth column), which the real frame returns in at hole_returns."""
    rows, columns = 16, 64
    ground = np.zeros((rows, columns), bool)
    ground[rows // 2:] = True
    real_range = np.where(ground & (rng.random((rows, columns)) >= 0.05), 10.0, 0.0)
    holes = ground.copy()
    holes[:, [c for c in range(columns) if c % 4 != 2]] = False
    sim_range = np.where(ground & ~holes, 10.0, 0.0)
    real_range[holes] = np.where(rng.random(holes.sum()) < hole_returns, 10.0, 0.0)
    recon = [np.where(ground, 10.0, 0.0), np.where(ground, 10.0, 0.0)]
    return bound.fold_features(real_range, sim_range, recon, 1.0)


def test_a_rule_learned_from_other_folds_fills_the_holes_the_real_frames_return_in(bound):
    rng = np.random.default_rng(7)
    data = [synthetic_fold(bound, rng, 0.9) for _ in range(3)]
    alone_cv, alone_own = bound.decision_bounds(data, 1)
    with_neighbours_cv, _ = bound.decision_bounds(data, 4)
    # The simulation alone misses the 90 % of holes that returned (an eighth of the beams: its
    # empty cell is mostly sky); with its empty row neighbours the table learns to return in
    # the holes and leaves only the coins: 5 % of the ground's returns, 10 % of the holes.
    assert alone_cv == pytest.approx(alone_own)
    assert alone_cv[0] < 0.88
    assert with_neighbours_cv[0] > 0.94
    assert with_neighbours_cv[1] > alone_cv[1] + 0.15


def test_holes_the_real_frames_leave_empty_stay_empty(bound):
    rng = np.random.default_rng(8)
    data = [synthetic_fold(bound, rng, 0.1) for _ in range(3)]
    alone_cv, _ = bound.decision_bounds(data, 1)
    with_neighbours_cv, _ = bound.decision_bounds(data, 4)
    assert with_neighbours_cv == pytest.approx(alone_cv, abs=0.01)


def test_the_cross_validated_table_never_sees_the_fold_it_scores(bound):
    rng = np.random.default_rng(9)
    # One fold whose real frame returns in the holes, one whose frame does not: each is scored
    # with the other's rule and loses the holes its own table gets right (about 100 of 1,024
    # beams each). A table that had seen the scored fold too would tie at the holes and lose
    # them in one fold only.
    data = [synthetic_fold(bound, rng, 0.9), synthetic_fold(bound, rng, 0.1)]
    cv, own = bound.decision_bounds(data, 4)
    assert cv[0] < own[0] - 0.08


def test_a_cell_no_other_fold_holds_keeps_the_simulated_return(bound):
    rng = np.random.default_rng(10)
    data = [synthetic_fold(bound, rng, 0.9) for _ in range(2)]
    count = len(data[0][2])
    seen, _ = bound.decision_bounds(data, count)
    # The second fold's ground in a range bin the first fold's has not: every ground cell is
    # unseen by the other fold's table, both ways, and the simulated return stands there.
    truth, sim, features = data[1]
    range_bin = features[-1].copy()
    range_bin[range_bin > 0] = 7
    data[1] = (truth, sim, features[:-1] + [range_bin])
    unseen, _ = bound.decision_bounds(data, count)
    sim_alone = np.mean([bound.scores(s, t) for t, s, _ in data], axis=0)
    assert unseen == pytest.approx(tuple(sim_alone))
    assert seen[0] > unseen[0] + 0.05
