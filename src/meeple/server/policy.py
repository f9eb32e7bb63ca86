"""What a name and a password must be.

Names: a person's name may not read as a bot's or a seat's label ("Bot 3 (hard)", "Seat 2"),
nor as someone else's account name, once it is folded the way a reader's eye folds it: case,
Unicode compatibility forms (NFKC), look-alike letters of other scripts (Unicode's confusables,
from the ``confusable_homoglyphs`` data: Cyrillic "о" reads as Latin "o") and digits written for
letters ("B0t", "S3at").

Passwords follow NIST SP 800-63B: at least 8 characters that are not all spaces or control
characters, and not among the commonest passwords (zxcvbn's frequency lists and patterns: a
password it guesses in under a million tries is refused, with its reason).
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Digits (and signs) written for letters; the confusables data covers other scripts. "1" reads
# as "l" or "i", so both readings are tried.
_LEET = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", "$": "s"}
_AS_L = str.maketrans({**_LEET, "1": "l", "|": "l"})
_AS_I = str.maketrans({**_LEET, "1": "i", "!": "i", "|": "i"})
_LEVELS = r"bot|invited|random|heuristic|ismcts|easy|medium|hard|expert|learned"
PASSWORD_MIN = 8
PASSWORD_CHECKED = 64  # zxcvbn's work grows with length; a longer password is judged by its start


@functools.lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    """``ch`` as the ASCII character it is confusable with, if any (else itself); a letter
    that has none is tried in upper case (Cyrillic "т" reads as "T" read small)."""
    if ch.isascii():
        return ch
    from confusable_homoglyphs import confusables

    for form in dict.fromkeys((ch, ch.upper())):
        for item in confusables.is_confusable(form, greedy=True, preferred_aliases=[]) or ():
            for glyph in item["homoglyphs"]:
                if len(glyph["c"]) == 1 and glyph["c"].isascii():
                    return glyph["c"].lower() if form != ch else glyph["c"]
    return ch


def skeleton(name: str) -> str:
    """NFKC, confusables to ASCII, case folded, spaces collapsed: how the name reads."""
    text = unicodedata.normalize("NFKC", name)
    return " ".join("".join(_latin(ch) for ch in text).casefold().split())


def _readings(name: str) -> tuple[str, ...]:
    s = skeleton(name)
    return s, s.translate(_AS_L), s.translate(_AS_I)


def fold(name: str) -> str:
    """The skeleton with digits read as letters and separators dropped: two names with the
    same fold read alike ("Ann_0" and "anno")."""
    return re.sub(r"[\W_]+", "", skeleton(name).translate(_AS_L))


def reads_as_label(name: str) -> bool:
    """True for "bot_3", "B0t3", "Seat-2", "Bot", "Bоt 3 (hаrd)" (Cyrillic), "x (h4rd)"."""
    s = skeleton(name)
    # a bot or seat word then a number: "bot_3", "B0t3", "s3at-2" (the word is read, the
    # number kept as digits)
    m = re.match(r"^([a-z0-9$@!|]{3,4}?)[\W_]*\d", s)
    if m and any(r in ("bot", "seat") for r in _readings(m.group(1))):
        return True
    return any(re.sub(r"[\W_]+", "", r) in ("bot", "seat")
               or re.search(rf"\((?:{_LEVELS})\b[^)]*\)", r) for r in _readings(name))


def check_password(password: str) -> str:
    """The password if acceptable, else ValueError saying why."""
    if len(password) < PASSWORD_MIN:
        raise ValueError(f"a password needs at least {PASSWORD_MIN} characters")
    visible = [ch for ch in password
               if not (ch.isspace() or unicodedata.category(ch).startswith("C"))]
    if len(visible) < PASSWORD_MIN // 2:
        raise ValueError("a password needs characters other than spaces and control characters")
    from zxcvbn import zxcvbn

    result = zxcvbn(password[:PASSWORD_CHECKED])
    if result["score"] < 2:
        why = result["feedback"].get("warning") or "it is too easy to guess"
        raise ValueError(f"this password is among the first a guesser would try: {why}")
    return password
