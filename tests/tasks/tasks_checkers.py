"""Independent correctness checkers for every task (used by the tests).

Nothing here imports the generators' grammars or transforms: the grammars
are transcribed again from the papers, and every target
is recomputed with different code from the generator's.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

# ---------------------------------------------------------------- ITG ----

# Grefenstette et al. 2015, Appendix C, with its typesetting errors corrected.
SVO_RULES = [
    ("A", "S1 VT2 O3", "S1 O3 VT2"),
    ("S", "S1 S2", "S1 S2"),
    ("S", "S1 rpi S2 VT3", "S1 rpo S2 VT3"),
    ("S", "ST1", "ST1"),
    ("O", "O1 O2", "O1 O2"),
    ("O", "S1 rpi S2 VT3", "S1 rpo S2 VT3"),
    ("O", "OT1", "OT1"),
]
SVO_LEXICAL = {"ST": ("si", "so"), "OT": ("oi", "oo"), "VT": ("vi", "vo")}

GENDER_RULES = [
    ("A", "B1", "B1"),
    ("A", "V1", "V1"),  # documented addition (paper sample starts with a verb)
    ("B", "B1 or B2", "B1 oder B2"),
    ("B", "S1 and S2", "S1 und S2"),
    ("B", "B1 V1", "B1 V1"),
    ("B", "S1", "S1"),  # documented addition (single-noun noun phrases)
    ("V", "W1 B2", "W1 B2"),
    ("V", "W1", "W1"),
    ("S", "the M1", "der M1"),
    ("S", "the F1", "die F1"),
    ("S", "the N1", "das N1"),
    ("S", "a M1", "ein M1"),
    ("S", "a F1", "eine F1"),
    ("S", "a N1", "ein N1"),
]
GENDER_LEXICAL = {"W": ("we", "wg"), "M": ("me", "mg"), "F": ("fe", "fg"), "N": ("ne", "ng")}


class ItgChecker:
    """Decides whether (source, target) has a synchronous derivation.

    Rules whose two sides have the same shape (linked nonterminals and
    terminals at the same positions) are "monotone": a synchronous
    derivation made only of them is a derivation over the string of
    aligned word pairs (source[i], target[i + d]) for a fixed offset d.
    Those are recognised with a boolean-matrix CKY fixpoint. Any other rule
    (SVO's ``A -> S1 VT2 O3 ||| S1 O3 VT2``) must be a root rule; it is
    checked by trying every split of the source and placing the linked
    spans on the target side.
    """

    def __init__(self, rules, lexical, root="A"):
        self.root = root
        self.lexical = dict(lexical)
        self.nonterminals = sorted({lhs for lhs, _, _ in rules})
        self.monotone, self.root_rules = [], []
        for lhs, src, tgt in rules:
            s = [self._item(x) for x in src.split()]
            t = [self._item(x) for x in tgt.split()]
            if len(s) == len(t) and all(
                (a[0] == "nt") == (b[0] == "nt") and (a[0] != "nt" or a == b) for a, b in zip(s, t)
            ):
                items = [a if a[0] == "nt" else ("pair", a[1], b[1]) for a, b in zip(s, t)]
                self.monotone.append((lhs, items))
            else:
                assert lhs == root, "non-monotone rules are only supported at the root"
                self.root_rules.append((s, t))
        for _, items in self.monotone:
            assert all(i != ("nt", root) for i in items if i[0] == "nt"), "root is recursive"

    def _item(self, token):
        m = re.fullmatch(r"([A-Z]+)(\d+)", token)
        if m:  # a linked nonterminal or lexical class, e.g. VT2
            return ("nt", m.group(1), int(m.group(2)))
        return ("word", token)

    def _pair_matches(self, item, s_word, t_word):
        kind = item[0]
        if kind == "pair":
            return s_word == item[1] and t_word == item[2]
        name = item[1]
        if name in self.lexical:
            sp, tp = self.lexical[name]
            ms = re.fullmatch(re.escape(sp) + r"(\d+)", s_word)
            mt = re.fullmatch(re.escape(tp) + r"(\d+)", t_word)
            return bool(ms and mt and ms.group(1) == mt.group(1))
        raise AssertionError(item)

    def _chart(self, src, tgt, d):
        n = len(src)

        def pair_matrix(item):
            m = np.zeros((n + 1, n + 1), dtype=np.float32)
            for i in range(n):
                if 0 <= i + d < len(tgt) and self._pair_matches(item, src[i], tgt[i + d]):
                    m[i, i + 1] = 1
            return m

        lexical = {name: pair_matrix(("nt", name, 0)) for name in self.lexical}
        chart = {nt: np.zeros((n + 1, n + 1), dtype=np.float32) for nt in self.nonterminals}
        terminals = {}
        for _, items in self.monotone:
            for it in items:
                if it[0] == "pair" and it not in terminals:
                    terminals[it] = pair_matrix(it)

        def matrix(it):
            if it[0] == "pair":
                return terminals[it]
            return lexical[it[1]] if it[1] in lexical else chart[it[1]]

        while True:
            changed = False
            for lhs, items in self.monotone:
                prod = matrix(items[0])
                for it in items[1:]:
                    prod = np.minimum(prod @ matrix(it), 1.0)
                new = np.maximum(chart[lhs], prod)
                if (new != chart[lhs]).any():
                    chart[lhs], changed = new, True
            if not changed:
                break
        chart.update(lexical)
        return chart

    def accepts(self, src, tgt) -> bool:
        """True iff some synchronous derivation from the root yields (src, tgt)."""
        src, tgt = list(src), list(tgt)
        n = len(src)
        if n == 0 or n != len(tgt):  # every rule has as many words on each side
            return False
        charts = {}

        def chart(d):
            if d not in charts:
                charts[d] = self._chart(src, tgt, d)
            return charts[d]

        if chart(0)[self.root][0, n] > 0:
            return True
        for s_items, t_items in self.root_rules:
            k = len(s_items)
            fixed = [x[0] == "word" or x[1] in self.lexical for x in s_items]
            for cuts in itertools.combinations(range(1, n), k - 1):
                bounds = (0,) + cuts + (n,)
                spans = [(bounds[i], bounds[i + 1]) for i in range(k)]
                if any(f and b - a != 1 for f, (a, b) in zip(fixed, spans)):
                    continue
                if any(x[0] == "word" and src[a] != x[1] for x, (a, _) in zip(s_items, spans)):
                    continue
                where = {x: span for x, span in zip(s_items, spans) if x[0] == "nt"}
                t = 0
                ok = True
                for x in t_items:
                    if x[0] == "word":
                        ok = t < n and tgt[t] == x[1]
                        t += 1
                    else:
                        a, b = where[x]
                        if x[1] in self.lexical:
                            ok = self._pair_matches(x, src[a], tgt[t])
                        else:
                            ok = chart(t - a)[x[1]][a, b] > 0
                        t += b - a
                    if not ok:
                        break
                if ok and t == n:
                    return True
        return False


# ----------------------------------------------------- Hao et al. tasks ----


def parity_prefixes(bits, include_current=True):
    """Parity of each prefix, computed by summing (not by a running XOR)."""
    return [sum(bits[: t + (1 if include_current else 0)]) % 2 for t in range(len(bits))]


def dyck_chains(s):
    """Splits a string of brackets into top-level pieces; None if unbalanced."""
    pieces, depth, start = [], 0, 0
    for i, c in enumerate(s):
        depth += 1 if c in "([" else -1
        if depth < 0:
            return None
        if depth == 0:
            pieces.append(s[start : i + 1])
            start = i + 1
    return pieces if depth == 0 and s else None


def is_chain(piece):
    """True iff piece is ``o1 .. ok ck .. c1`` with matching brackets (T of §4.3)."""
    k = len(piece) // 2
    close = {"(": ")", "[": "]"}
    return (
        len(piece) % 2 == 0
        and all(c in close for c in piece[:k])
        and [close[c] for c in reversed(piece[:k])] == list(piece[k:])
    )


def dyck_min_height(s):
    """Smallest derivation height of s under S -> S T | T S | T (terminals = 1 level)."""
    pieces = dyck_chains(s)
    assert pieces is not None and all(is_chain(p) for p in pieces), s
    h = [len(p) // 2 + 1 for p in pieces]  # T of k nested pairs has height k + 1
    m = len(h)
    best = {}
    for i in range(m):
        best[(i, i)] = 1 + h[i]
    for width in range(1, m):
        for i in range(m - width):
            j = i + width
            best[(i, j)] = 1 + min(max(best[(i, j - 1)], h[j]), max(h[i], best[(i + 1, j)]))
    return best[(0, m - 1)]


def expected_closers(s):
    """For each position t, the symbol to predict next if it is a closing bracket."""
    out, stack = [], []
    for t, c in enumerate(s):
        if c in "([":
            stack.append(c)
        else:
            stack.pop()
        nxt = s[t + 1] if t + 1 < len(s) else None
        if nxt in (")", "]"):
            out.append({"(": ")", "[": "]"}[stack[-1]])
        else:
            out.append(None)
    return out


def rpn_well_formed(tokens):
    need = 0
    for tok in tokens:
        if tok in ("T", "F"):
            need += 1
        else:
            if need < 2:
                return False
            need -= 1
    return need == 1


def rpn_eval(tokens):
    """Evaluates a well-formed RPN formula by recursion from its last symbol."""

    def parse(end):  # returns (value, start) of the formula ending at end
        tok = tokens[end]
        if tok in ("T", "F"):
            return tok == "T", end
        right, start = parse(end - 1)
        left, start = parse(start - 1)
        return (left or right) if tok == "or" else (left and right), start

    value, start = parse(len(tokens) - 1)
    assert start == 0
    return value


def rpn_op_depth(tokens):
    def parse(end):
        if tokens[end] in ("T", "F"):
            return 0, end
        d1, start = parse(end - 1)
        d2, start = parse(start - 1)
        return 1 + max(d1, d2), start

    return parse(len(tokens) - 1)[0]


def longest_subformula_values(tokens):
    """Value of the longest well-formed substring ending at each position (brute force)."""
    out = []
    for t in range(len(tokens)):
        for s in range(t + 1):
            if rpn_well_formed(tokens[s : t + 1]):
                out.append(rpn_eval(tokens[s : t + 1]))
                break
        else:
            raise AssertionError(f"no sub-formula ends at {t} in {tokens}")
    return out


class AgreementParser:
    """Recursive-descent parser for the Hao et al. §4.5 grammar.

    It does *not* enforce agreement: every parse records, for each
    auxiliary position, the number its subject requires, so the tests can
    recompute the correct auxiliary independently.
    """

    AUX = {"has": "sing", "have": "plur"}
    NOUN = {"lobster": "sing", "lobsters": "plur"}

    def __init__(self, words):
        self.w = list(words)

    def _at(self, i, word):
        return i < len(self.w) and self.w[i] == word

    # Each method returns a list of (end, height, requirements) where
    # requirements is a tuple of (aux_position, required_number).
    def np_(self, i):
        out = []
        if self._at(i, "the") and i + 1 < len(self.w) and self.w[i + 1] in self.NOUN:
            num = self.NOUN[self.w[i + 1]]
            # NP_x -> the lobster(s): height 2; NP -> NP_x adds a level above.
            out.append((i + 2, 2, (), num))
            for end, h, req in self.pp(i + 2):
                out.append((end, 1 + max(1, h), req, num))
            for end, h, req in self.rel(i + 2, num):
                out.append((end, 1 + max(1, h), req, num))
        return out

    def pp(self, i):
        if not self._at(i, "in"):
            return []
        return [(end, 1 + max(1, 1 + h), req) for end, h, req, _ in self.np_(i + 1)]

    def rel(self, i, head_number):
        out = []
        if self._at(i, "that") and i + 1 < len(self.w) and self.w[i + 1] in self.AUX:
            for end, h, req in self.vp(i + 2):
                out.append((end, 1 + max(1, h), ((i + 1, head_number),) + req))
        for end, h, req in self.rel_obj(i):
            out.append((end, 1 + h, req))
        return out

    def rel_obj(self, i):
        out = []
        if not self._at(i, "that"):
            return out
        for end, h, req, num in self.np_(i + 1):
            if end < len(self.w) and self.w[end] in self.AUX and self._at(end + 1, "devoured"):
                out.append((end + 2, 1 + max(1, h), req + ((end, num),)))
        return out

    def vp(self, i):
        out = []
        if self._at(i, "slept"):
            out.append((i + 1, 2, ()))
        if self._at(i, "devoured"):
            for end, h, req, _ in self.np_(i + 1):
                out.append((end, 1 + max(1, 1 + h), req))
        return out

    def parses(self):
        """All full parses as (height, requirements)."""
        out = []
        for end, h, req, num in self.np_(0):
            if end == len(self.w) - 1 and self.w[end] in self.AUX:
                out.append((1 + max(1, h), req + ((end, num),)))
        return out
