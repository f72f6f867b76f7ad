"""How much the BERTScore embedding cache stores per sentence, at float16 and float32, and what float16 costs.

In one run on the DEMETR files in ../shared (every checked example's good and perturbed translation, and the
references): ``tsqe score --metric bertscore-f`` as the core runs it, cold with ``--embeddings float32``, cold with
``float16`` (the default), then warm with ``float16`` (cached scores dropped, cached embeddings kept); the bytes
each precision's rows hold in the ``embeddings`` table (vectors and token lists) per stored row and per sentence;
how many sentences shared a row with another because they tokenise alike; the largest difference between the float16
and float32 scores of the same outputs, and between tsqe's float16 scores and ``bert_score.score`` on the first
pairs; and how many good/perturbed pairs change their verdict between the two precisions.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/embeddings.py [--compare M]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlalchemy import delete, func, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from filters.bertscore import default_model_dir  # noqa: E402
from filters.metrics import MetricOptions  # noqa: E402
from filters.scoring import score_outputs  # noqa: E402
from store import open_database  # noqa: E402
from store.models import Embedding, Item, MetricScore, Output, Reference  # noqa: E402
from suite.importers.challenge import import_challenge  # noqa: E402

DEMETR = Path(__file__).resolve().parents[2] / "shared" / "data" / "external" / "demetr"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEMETR)
    parser.add_argument("--compare", type=int, default=400, help="pairs compared with bert_score.score")
    args = parser.parse_args()

    import bert_score

    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "bench.sqlite")
        imported = import_challenge(db, args.data, "demetr")
        with db.session() as session:
            sentences = {*session.scalars(select(Output.text)), *session.scalars(select(Reference.text))}
        print(f"data: {imported.items} DEMETR examples, {len(sentences)} distinct sentences (outputs and references)")
        timings, scores = {}, {}
        for run, storage in (("cold float32", "float32"), ("cold float16", "float16"), ("warm float16", "float16")):
            if run.startswith("warm"):  # the embeddings are cached, the scores not: the warm run reads the former
                with db.transaction() as session:
                    session.execute(delete(MetricScore))
            start = time.perf_counter()
            result = score_outputs(db, "bertscore-f", options=MetricOptions(embeddings=storage))
            timings[run] = time.perf_counter() - start
            scores[storage] = {row.output_id: row.score for row in result.rows}
            print(f"{run}: {timings[run]:.1f} s ({len(result.rows)} outputs)")
        with db.session() as session:
            for precision in ("float32", "float16"):
                rows, vectors, tokens = session.execute(
                    select(func.count(), func.sum(func.length(Embedding.vectors)),
                           func.sum(func.length(Embedding.tokens))).where(Embedding.precision == precision)).one()
                per_row, per_sentence = (vectors + tokens) / rows / 1024, (vectors + tokens) / len(sentences) / 1024
                print(f"{precision}: {rows} rows for {len(sentences)} sentences ({len(sentences) - rows} shared a row: "
                      f"they tokenise alike); {per_row:.1f} KiB a row ({vectors / rows / 1024:.1f} KiB vectors), "
                      f"{per_sentence:.1f} KiB a sentence")
            pairs = session.execute(
                select(Item.id, Output.id, Output.text).join(Output, Output.item_id == Item.id)
                .order_by(Item.position, Output.id)).all()
            references = dict(session.execute(select(Reference.item_id, Reference.text)).all())
        common = sorted(set(scores["float16"]) & set(scores["float32"]))
        diff = np.array([abs(scores["float16"][o] - scores["float32"][o]) for o in common])
        print(f"|F(float16) - F(float32)| over {len(common)} outputs: max {diff.max():.2e}, mean {diff.mean():.2e}")
        by_item: dict[int, list[int]] = {}
        for item_id, output_id, _ in pairs:
            by_item.setdefault(item_id, []).append(output_id)
        flipped = sum(np.sign(scores["float16"][a] - scores["float16"][b]) !=
                      np.sign(scores["float32"][a] - scores["float32"][b])
                      for a, b in (ids for ids in by_item.values() if len(ids) == 2))
        print(f"good/perturbed pairs whose verdict differs between float16 and float32: {flipped}")
        chosen = pairs[:args.compare]
        reference = bert_score.score([text for _, _, text in chosen], [references[item] for item, _, _ in chosen],
                                     model_type=str(default_model_dir()), num_layers=6)[2].numpy()
        ours = np.array([scores["float16"][output_id] for _, output_id, _ in chosen])
        print(f"|F(float16) - bert_score.score| over {len(chosen)} outputs: max {np.abs(ours - reference).max():.2e}")
        print(f"warm/cold float16: {timings['warm float16'] / timings['cold float16']:.3f}x")
        db.close()


if __name__ == "__main__":
    main()
