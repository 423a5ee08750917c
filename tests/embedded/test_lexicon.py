"""The word lists are data: one file per language, read once, frozen, shipped with the package."""

from __future__ import annotations

import json
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import ragmetrics_core
from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.lexicon import EN, RU, ZH, Words

ROOT = Path(ragmetrics_core.__file__).parent
FILES = sorted((ROOT / "judges" / "embedded").glob("lexicon_*.json"))


def _words_of(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value]
    assert isinstance(value, list)
    return [word for item in value for word in _words_of(item)]


def test_each_language_has_its_own_file() -> None:
    assert [path.name for path in FILES] == ["lexicon_en.json", "lexicon_ru.json", "lexicon_zh.json"]


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_every_word_is_written_as_the_judge_reads_it(path: Path) -> None:
    lists = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(lists.pop("_about"), str)
    for name, value in lists.items():
        for word in _words_of(value):
            assert word == word.casefold() == word.strip() != "", (name, word)
            assert "ё" not in word or name == "thing_pronouns", (name, word)  # see lexicon's docstring


def test_the_files_are_package_data() -> None:
    pyproject = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["ragmetrics_core"]
    for path in FILES:
        relative = path.relative_to(ROOT).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in patterns), relative


def test_the_lists_are_read_only_and_none_is_empty() -> None:
    named = {name: value for name, value in vars(lexicon).items() if name.isupper() and name not in {"EN", "RU", "ZH"}}
    assert len(named) >= 35
    assert all(value for value in named.values()), [name for name, value in named.items() if not value]
    with pytest.raises(TypeError):
        lexicon.MONTHS["jan"] = 1  # type: ignore[index]
    assert isinstance(lexicon.EN_STOPWORDS, frozenset)


def test_a_list_a_file_lacks_is_an_error_not_an_empty_list() -> None:
    for language in (EN, RU, ZH):
        with pytest.raises(KeyError):
            language.set("no such list")
    assert isinstance(Words("en").set("stopwords"), frozenset)


def test_languages_merge_where_a_rule_reads_them_all() -> None:
    assert {"i", "я"} <= lexicon.DIALOGUE_PRONOUNS
    assert lexicon.NUMBER_SCALES["million"] == lexicon.NUMBER_SCALES["млн"] == 1_000_000
    assert lexicon.NUMBER_SCALES["万"] == 10_000
    assert lexicon.NONCOMMITTAL_PHRASES[0] == "i don't know" and "我不知道" in lexicon.NONCOMMITTAL_PHRASES
    assert ("large", "big", "huge", "vast", "substantial", "enormous", "massive", "sizable") in lexicon.SYNONYM_GROUPS
