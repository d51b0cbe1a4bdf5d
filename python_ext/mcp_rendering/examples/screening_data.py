"""A synthetic KYC / sanctions screening batch.

Every person, list and match here is invented: names are assembled from made-up syllables, and the watch lists
are fictional. The batch is generated from a fixed seed, so the same batch always yields the same hits in the same
order — which is what lets a continuation token walk it page by page with no gap and no duplicate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel

from mcp_rendering.document import Document, Row, Section

__all__ = [
    "BATCH_SIZE",
    "DEFAULT_BATCH",
    "SCREENING_LISTS",
    "Hit",
    "screening_document",
    "screening_hits",
    "screening_summary",
]

DEFAULT_BATCH = "onboarding-2025-q4"
"""The identifier of the example batch."""

BATCH_SIZE = 2_400
"""How many customers the example batch screens."""

SCREENING_LISTS: dict[str, str] = {
    "sanctions": "Sanctions list matches",
    "pep": "Politically exposed persons (PEP)",
    "adverse-media": "Adverse media",
}
"""Category id -> section title, in the order the report shows them."""

_SOURCES: dict[str, tuple[str, ...]] = {
    "sanctions": ("Fictional Consolidated Sanctions List", "Imaginary Asset Freeze Register"),
    "pep": ("Invented PEP Registry", "Make-Believe Officials Index"),
    "adverse-media": ("Pretend Press Archive", "Synthetic News Monitor"),
}

_FIRST = (
    "Aldrin", "Brisa", "Corvel", "Dalmi", "Esko", "Fenna", "Gorvik", "Halsa", "Ilvar", "Jessamy", "Korra", "Lorcan",
    "Mirelle", "Nadrin", "Orsa", "Pellam", "Quenby", "Rasko", "Solvei", "Tamsin", "Ulrik", "Vashti", "Wendel", "Yselde",
)  # fmt: skip
_SURNAME_HEAD = ("Brax", "Corm", "Dell", "Farn", "Grum", "Holt", "Kest", "Lund", "Mor", "Pask", "Quill", "Rook")
_SURNAME_TAIL = ("ley", "wick", "ford", "mere", "by", "stead", "holm", "ridge", "vale", "worth")
_COUNTRIES = ("Arvenia", "Belmora", "Carpathé", "Dunmarch", "Estoval", "Freyland")  # invented countries

_HIT_RATE = 0.11
_SEED = 20251231


@dataclass(frozen=True)
class Hit:
    """One flagged customer: who, against which fictional list entry, and how strongly."""

    hit_id: str
    category: str
    customer: str
    customer_ref: str
    matched_entry: str
    source: str
    score: float
    date_of_birth: str | None
    country: str


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_SURNAME_HEAD)}{rng.choice(_SURNAME_TAIL)}"


def _variant(name: str, rng: random.Random) -> str:
    """The spelling the watch list holds: the same name, or a near miss that a fuzzy matcher would still flag."""
    first, last = name.split(" ", 1)
    match rng.randrange(4):
        case 0:
            return name
        case 1:
            return f"{last.upper()}, {first}"
        case 2:
            return f"{first[0]}. {last}"
        case _:
            return f"{first} {last[:-1]}{last[-1] * 2}"


@cache
def screening_hits(batch: str = DEFAULT_BATCH) -> tuple[Hit, ...]:
    """Every flagged customer of `batch`, grouped by category (report order) and by customer reference."""
    rng = random.Random(f"{_SEED}:{batch}")
    hits: list[Hit] = []
    for number in range(1, BATCH_SIZE + 1):
        name = _name(rng)
        if rng.random() >= _HIT_RATE:
            continue
        category = rng.choices(tuple(SCREENING_LISTS), weights=(2, 3, 5))[0]
        known_birth = rng.random() < 0.8
        birth = f"19{rng.randrange(40, 100):02d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        hits.append(
            Hit(
                hit_id=f"{batch}-{number:05d}",
                category=category,
                customer=name,
                customer_ref=f"CUST-{number:05d}",
                matched_entry=_variant(name, rng),
                source=rng.choice(_SOURCES[category]),
                score=round(rng.uniform(0.72, 1.0), 2),
                # An entry without a recorded date of birth is a real null, not a value to invent.
                date_of_birth=birth if known_birth else None,
                country=rng.choice(_COUNTRIES),
            )
        )
    order = {category: position for position, category in enumerate(SCREENING_LISTS)}
    return tuple(sorted(hits, key=lambda hit: (order[hit.category], hit.customer_ref)))


SCREENING_COLUMNS = ("Customer ref", "Matched list entry", "Source list", "Score", "Date of birth", "Country")


def screening_document(batch: str = DEFAULT_BATCH) -> Document:
    """The screening report of `batch`: one section per category, every flagged customer in it."""
    hits = screening_hits(batch)
    sections: list[Section] = []
    for category, title in SCREENING_LISTS.items():
        rows = tuple(
            Row(
                id=hit.hit_id,
                label=hit.customer,
                values=(
                    hit.customer_ref,
                    hit.matched_entry,
                    hit.source,
                    hit.score,
                    hit.date_of_birth,
                    hit.country,
                ),
            )
            for hit in hits
            if hit.category == category
        )
        sections.append(Section(id=category, title=title, columns=SCREENING_COLUMNS, rows=rows))
    return Document(
        title=f"Screening report for batch {batch}: {len(hits)} flagged of {BATCH_SIZE} customers (synthetic data)",
        sections=tuple(sections),
    )


class ListCount(BaseModel):
    """How many customers of a batch one screening list flagged."""

    list: str
    flagged: int


class ScreeningSummary(BaseModel):
    """Counts for a batch. Fixed fields and a list rather than a dict keyed by list name: a dict gives the tool an
    `outputSchema` with a schema-valued `additionalProperties`, which TypeScript SDK 1.22.0 rejects."""

    batch: str
    screened: int
    flagged: int
    by_list: tuple[ListCount, ...]


def screening_summary(batch: str = DEFAULT_BATCH) -> ScreeningSummary:
    """Counts per category, for a tool whose result may be summarized."""
    hits = screening_hits(batch)
    by_list = tuple(
        ListCount(list=category, flagged=sum(1 for hit in hits if hit.category == category))
        for category in SCREENING_LISTS
    )
    return ScreeningSummary(batch=batch, screened=BATCH_SIZE, flagged=len(hits), by_list=by_list)
