"""Per-task correctness check of one example, by independent computation."""

from tasks_checkers import (
    GENDER_LEXICAL,
    GENDER_RULES,
    SVO_LEXICAL,
    SVO_RULES,
    AgreementParser,
    ItgChecker,
    dyck_min_height,
    expected_closers,
    longest_subformula_values,
    parity_prefixes,
    rpn_op_depth,
)

ITG_CHECKERS = {
    "itg_svo_sov": ItgChecker(SVO_RULES, SVO_LEXICAL),
    "itg_gender_conjugation": ItgChecker(GENDER_RULES, GENDER_LEXICAL),
}


def words(task, ex):
    return task.source_text(ex).split(), task.target_text(ex).split()


def check_example(name, task, ex, regime):
    """Asserts that ``ex`` is a correct example of task ``name`` in ``regime``."""
    src, tgt = words(task, ex)
    assert len(src) == len(ex.source) and len(tgt) == len(ex.target)
    # Ids and text must agree (text is what users read).
    assert task.encode_source(" ".join(src)) == ex.source
    assert task.encode_target(" ".join(tgt)) == ex.target
    lo, hi, depth = regime.min_length, regime.max_length, regime.max_depth

    if name in ("sequence_copy", "sequence_reversal", "bigram_flip"):
        assert ex.eval_mask is None
        assert lo <= len(src) <= hi
        assert all(w.startswith("x") for w in src) and all(w.startswith("y") for w in tgt)
        mapped = ["y" + w[1:] for w in src]  # x17 -> y17
        if name == "sequence_copy":
            expected = mapped
        elif name == "sequence_reversal":
            expected = mapped[::-1]
        else:
            assert len(src) % 2 == 0
            expected = [mapped[i ^ 1] for i in range(len(mapped))]  # i xor 1 swaps pairs
        assert tgt == expected
    elif name in ITG_CHECKERS:
        assert ex.eval_mask is None
        assert lo <= len(src) <= hi and lo <= len(tgt) <= hi
        assert ITG_CHECKERS[name].accepts(src, tgt), (src, tgt)
    elif name == "string_reversal":
        n = len(src) // 2
        assert lo <= n <= hi and len(src) == 2 * n
        w = src[:n]
        assert set(w) <= {"0", "1"} and src[n:] == ["#"] * n
        assert tgt == ["#"] * n + w[::-1]
        assert list(ex.eval_mask) == [0] * n + [1] * n
    elif name in ("cumulative_xor", "delayed_xor"):
        assert lo <= len(src) <= hi and set(src) <= {"0", "1"}
        bits = [int(b) for b in src]
        expected = parity_prefixes(bits, include_current=(name == "cumulative_xor"))
        assert [int(b) for b in tgt] == expected
        assert list(ex.eval_mask) == [1] * len(src)
    elif name == "parenthesis_prediction":
        s = "".join(src)
        assert lo <= len(s) <= hi
        assert dyck_min_height(s) <= depth  # also asserts s is in the language
        assert tgt == src[1:] + ["<eos>"]
        closers = expected_closers(s)
        assert list(ex.eval_mask) == [int(c is not None) for c in closers]
        for t, c in enumerate(closers):
            if c is not None:
                assert tgt[t] == c
    elif name == "boolean_formula":
        assert lo <= len(src) <= hi
        assert 3 + rpn_op_depth(src) <= depth  # S -> L -> T has height 3
        values = longest_subformula_values(src)
        assert tgt == ["T" if v else "F" for v in values]
        assert list(ex.eval_mask) == [1] * len(src)
    elif name == "subject_auxiliary_agreement":
        assert lo <= len(src) <= hi
        parses = AgreementParser(src).parses()
        assert parses, src
        good = [
            (h, req)
            for h, req in parses
            if h <= depth and all(AgreementParser.AUX[src[p]] == num for p, num in req)
        ]
        assert good, (src, parses)
        # Recomputed: the auxiliary each scored position must predict.
        required = dict(good[0][1])
        assert tgt == src[1:] + ["<eos>"]
        for t in range(len(src)):
            if ex.eval_mask[t]:
                assert t + 1 in required
                assert tgt[t] == ("has" if required[t + 1] == "sing" else "have")
            else:
                assert t + 1 not in required
    else:
        raise AssertionError(f"no check for task {name}")
