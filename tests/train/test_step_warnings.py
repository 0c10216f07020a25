"""The log line of an RL step that taught nothing (`ledger.empty_step_warning`): why, in one line."""


def test_a_step_that_taught_nothing_says_why_in_one_line():
    from coderl.train.rl.ledger import empty_step_warning

    assert empty_step_warning(3, {"train/empty_step": 0.0}) is None and empty_step_warning(3, {}) is None
    assert empty_step_warning(3, {"train/empty_step": 1.0}) == (
        "step 3: no update: no group's rewards varied (every sample of each prompt scored alike)")
    line = empty_step_warning(4, {"train/empty_step": 1.0, "agent/left_out": 1.0, "agent/ended_malformed": 0.75,
                                  "agent/ended_turns": 0.25})
    assert line == ("step 4: no update: every episode ended at a limit and was left out of the loss (--limit-episodes "
                    "drop; malformed replies 75%, turns 25%, context 0%)")
