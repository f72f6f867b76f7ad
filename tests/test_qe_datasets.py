from __future__ import annotations

from pathlib import Path

import pytest

from qe.datasets import load_qe_dataset
from suite.errors import InputFileError, TsqeError

DA_HEADER = "index\toriginal\ttranslation\tscores\tmean\tz_scores\tz_mean\tmodel_scores\n"


def write_pe(directory: Path, prefix: str, src: list[str], mt: list[str], hter: list[str]) -> Path:
    for ext, lines in (("src", src), ("mt", mt), ("hter", hter)):
        (directory / f"{prefix}.{ext}").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return directory / prefix


def test_post_editing_layout_by_prefix_and_directory(tmp_path: Path) -> None:
    write_pe(tmp_path, "train", ["A b .", "C d ."], ["X y .", "Z\u2028w ."], ["0.5", "0.000000"])
    for path in (tmp_path / "train", tmp_path):
        data = load_qe_dataset([path], "hter")
        assert data.sources == ["A b .", "C d ."]
        assert data.outputs == ["X y .", "Z\u2028w ."]  # a line separator inside a sentence is not a new line
        assert data.targets == [0.5, 0.0]
        assert not data.higher_is_better
        assert data.files == [{"path": f"{tmp_path / 'train'}.{{src,mt,hter}}", "lines": 2}]


def test_misaligned_files_are_rejected_with_file_and_line(tmp_path: Path) -> None:
    prefix = write_pe(tmp_path, "dev", ["a", "b", "c"], ["x", "y"], ["0.1", "0.2", "0.3", "0.4"])
    with pytest.raises(InputFileError) as error:
        load_qe_dataset([prefix], "hter")
    message = str(error.value)
    assert f"{tmp_path / 'dev.mt'}:3: file ends here but {tmp_path / 'dev.src'} has 3 lines" in message
    assert f"{tmp_path / 'dev.hter'}:4: line beyond the 3 lines" in message


def test_bad_scores_and_empty_sources_are_located(tmp_path: Path) -> None:
    prefix = write_pe(tmp_path, "dev", ["a", "", "c"], ["x", "y", "z"], ["0.1", "n/a", "inf"])
    with pytest.raises(InputFileError) as error:
        load_qe_dataset([prefix], "hter")
    assert [str(p) for p in error.value.problems] == [
        f"{tmp_path / 'dev.src'}:2: empty source sentence",
        f"{tmp_path / 'dev.hter'}:2: not a number: 'n/a'",
        f"{tmp_path / 'dev.hter'}:3: not a finite number: 'inf'",
    ]


def test_missing_file_and_unknown_target(tmp_path: Path) -> None:
    (tmp_path / "train.src").write_text("a\n", encoding="utf-8")
    with pytest.raises(TsqeError, match="missing QE data file"):
        load_qe_dataset([tmp_path / "train"], "hter")
    with pytest.raises(TsqeError, match="unknown QE target"):
        load_qe_dataset([tmp_path / "train"], "bleu")


def test_direct_assessment_table(tmp_path: Path) -> None:
    table = tmp_path / "train.ende.df.short.tsv"
    table.write_text(DA_HEADER
                     + '0\tHe said "no".\tEr sagte „nein“.\t[90, 80]\t85.0\t[0.1, 0.2]\t0.15\t0.0\n'
                     + "1\tYes.\tJa.\t[70]\t70\t[-0.3]\t-0.3\t0.0\n", encoding="utf-8")
    da = load_qe_dataset([tmp_path], "da")
    assert da.sources == ['He said "no".', "Yes."] and da.outputs == ["Er sagte „nein“.", "Ja."]
    assert da.targets == [85.0, 70.0] and da.higher_is_better
    z = load_qe_dataset([table], "da-z")
    assert z.targets == [0.15, -0.3]
    assert load_qe_dataset([tmp_path / "train"], "da").targets == [85.0, 70.0]


def test_direct_assessment_table_errors(tmp_path: Path) -> None:
    table = tmp_path / "dev.ende.df.short.tsv"
    table.write_text("index\toriginal\ttranslation\n0\ta\tb\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"dev.ende.df.short.tsv:1: header lacks column\(s\) mean"):
        load_qe_dataset([table], "da")
    table.write_text(DA_HEADER + "0\ta\tb\t[1]\t1\t[0]\t0\t0\n1\ta\tb\t[1]\n2\ta\tb\t[1]\tmany\t[0]\t0\t0\n",
                     encoding="utf-8")
    with pytest.raises(InputFileError) as error:
        load_qe_dataset([table], "da")
    assert [str(p) for p in error.value.problems] == [f"{table}:3: 4 fields, the header has 8",
                                                      f"{table}:4: not a number: 'many'"]


def test_real_mlqe_pe_en_de(shared_data: Path) -> None:
    root = shared_data / "mlqe-pe" / "en-de"
    train = load_qe_dataset([root / "train"], "hter")
    assert len(train) == 7000
    assert train.sources[0] == "José Ortega y Gasset visited Husserl at Freiburg in 1934 ."
    assert min(train.targets) == 0.0 and max(train.targets) == 1.0
    dev = load_qe_dataset([root / "dev"], "da")
    assert len(dev) == 1000
    assert dev.sources[1] == "He also begins an affair with Veronica Harrington, who bails him out."
    assert dev.targets[1] == pytest.approx(83.5)
    both = load_qe_dataset([root / "train", root / "dev"], "hter")
    assert len(both) == 8000 and [f["lines"] for f in both.files] == [7000, 1000]
