"""Checkpoint selection on the held-out eval: best kept, early stop, resumable state."""


from coderl.train.rl.selection import Selection


def test_best_is_the_first_strictly_highest_and_patience_counts_evaluations():
    sel = Selection(patience=2)
    assert sel.update(1, {"loss/x": 1.0}) is False and sel.best_step is None  # not an evaluation
    assert sel.update(2, {"eval/pass@1": 0.2}) is True
    assert sel.update(4, {"eval/pass@1": 0.3}) is True
    assert sel.update(6, {"eval/pass@1": 0.3}) is False  # a tie keeps the earlier checkpoint
    assert (sel.best_step, sel.best_score, sel.since_best, sel.should_stop) == (4, 0.3, 1, False)
    assert sel.update(8, {"eval/pass@1": 0.25}) is False and sel.should_stop
    assert sel.metrics() == {"select/best_step": 4.0, "select/best_pass@1": 0.3, "select/best_fraction_passed": 0.0,
                             "select/evals_since_best": 2.0}
    again = Selection.from_state(sel.state_dict(), patience=2)
    assert again == sel and not Selection(patience=0, since_best=99).should_stop


def test_equal_pass_at_1_is_ranked_by_the_fraction_of_tests_passed():
    sel = Selection(patience=3)
    assert sel.update(0, {"eval/pass@1": 0.02, "eval/fraction_passed": 0.30}) is True
    assert sel.update(5, {"eval/pass@1": 0.02, "eval/fraction_passed": 0.35}) is True  # partial progress counts
    assert sel.update(10, {"eval/pass@1": 0.02, "eval/fraction_passed": 0.35}) is False  # a full tie: keep step 5
    assert sel.update(15, {"eval/pass@1": 0.01, "eval/fraction_passed": 0.90}) is False  # pass@1 ranks first
    assert sel.update(20, {"eval/pass@1": 0.03, "eval/fraction_passed": 0.10}) is True
    assert (sel.best_step, sel.best_score, sel.best_tiebreak, sel.since_best) == (20, 0.03, 0.10, 0)
    assert Selection.from_state(sel.state_dict(), patience=3) == sel
    assert Selection.from_state({"best_step": 4, "best_score": 0.3, "since_best": 1}, 2).best_tiebreak == 0.0
