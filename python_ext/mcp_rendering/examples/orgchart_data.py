"""A synthetic organisation of a few thousand people, five levels deep.

The company, its people and their names are invented and generated from a fixed seed. Rows come in depth-first
order (each manager directly above their reports), and `Row.level` carries the depth, so the document's shape is
the hierarchy itself: dropping or reordering a row would misattach everyone under it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel

from mcp_rendering.document import Document, Row, Section

__all__ = ["COMPANY", "DIVISIONS", "Person", "headcount_summary", "org_chart_document", "people"]

COMPANY = "Quillmoor Imaginary Holdings"
"""The (invented) organisation."""

DIVISIONS: dict[str, str] = {
    "exec": "Executive office",
    "eng": "Engineering",
    "ops": "Operations",
    "sales": "Sales",
    "fin": "Finance",
    "people": "People",
    "legal": "Legal & Compliance",
}
"""Division id -> name, in chart order. The executive office holds the chief executive only."""

_DEPARTMENTS: dict[str, tuple[str, ...]] = {
    "eng": ("Platform", "Data", "Mobile", "Security", "Quality"),
    "ops": ("Logistics", "Facilities", "Procurement", "Customer Care"),
    "sales": ("North Region", "South Region", "Partnerships", "Inside Sales"),
    "fin": ("Accounting", "Treasury", "Planning"),
    "people": ("Recruiting", "Learning", "Payroll"),
    "legal": ("Contracts", "Compliance", "Privacy"),
}
_SITES = ("Lyonesse", "Avalon", "Ys", "Hy-Brasil", "Thule")  # legendary places, not real offices
_GIVEN = (
    "Ada", "Bram", "Cleo", "Dov", "Elin", "Fitz", "Greer", "Hugo", "Isla", "Jory", "Kit", "Lior", "Mael", "Noor",
    "Otto", "Pia", "Quin", "Rhea", "Sten", "Tova", "Ugo", "Vera", "Wim", "Xan", "Yara", "Zeb",
)  # fmt: skip
_FAMILY = (
    "Ambervale", "Bellweather", "Cinderby", "Dunmore", "Embersley", "Foxglove", "Greywater", "Hollowell",
    "Ivybridge", "Juniperwood", "Kettleby", "Larkspur", "Mossgrove", "Nettlefield", "Oakhollow", "Pebblestone",
    "Quarrytop", "Ravensmere", "Silverbirch", "Thistledown",
)  # fmt: skip
_MANAGERS_PER_DEPARTMENT = (4, 6)
_REPORTS_PER_MANAGER = (18, 30)
_SEED = 4242


@dataclass(frozen=True)
class Person:
    """One person in the chart."""

    employee_id: str
    name: str
    title: str
    division: str
    site: str
    level: int
    manager_id: str | None


@cache
def people() -> tuple[Person, ...]:
    """Everyone, depth-first: the chief executive, then each division head followed by their whole subtree."""
    rng = random.Random(_SEED)
    counter = 0

    def make(title: str, division: str, level: int, manager: Person | None) -> Person:
        nonlocal counter
        counter += 1
        return Person(
            employee_id=f"E{counter:05d}",
            name=f"{rng.choice(_GIVEN)} {rng.choice(_FAMILY)}",
            title=title,
            division=division,
            site=rng.choice(_SITES),
            level=level,
            manager_id=None if manager is None else manager.employee_id,
        )

    chief = make("Chief Executive Officer", "exec", 0, None)
    everyone = [chief]
    for division, departments in _DEPARTMENTS.items():
        head = make(f"Chief {DIVISIONS[division]} Officer", division, 1, chief)
        everyone.append(head)
        for department in departments:
            director = make(f"Director, {department}", division, 2, head)
            everyone.append(director)
            for team in range(1, rng.randint(*_MANAGERS_PER_DEPARTMENT) + 1):
                manager = make(f"Manager, {department} team {team}", division, 3, director)
                everyone.append(manager)
                for _ in range(rng.randint(*_REPORTS_PER_MANAGER)):
                    role = rng.choice(("Specialist", "Senior specialist", "Analyst", "Associate", "Lead"))
                    everyone.append(make(f"{role}, {department}", division, 4, manager))
    return tuple(everyone)


ORG_COLUMNS = ("Employee", "Title", "Site", "Reports to")


def org_chart_document(division: str | None = None) -> Document:
    """The org chart, one section per division in chart order; `division` keeps only that division."""
    everyone = people()
    names = {person.employee_id: person.name for person in everyone}
    sections: list[Section] = []
    for division_id, division_name in DIVISIONS.items():
        if division is not None and division_id != division:
            continue
        rows = tuple(
            Row(
                id=person.employee_id,
                label=person.name,
                values=(
                    person.employee_id,
                    person.title,
                    person.site,
                    # The chief executive reports to nobody: a null, not an empty string.
                    None if person.manager_id is None else names[person.manager_id],
                ),
                level=person.level,
            )
            for person in everyone
            if person.division == division_id
        )
        sections.append(Section(id=division_id, title=division_name, columns=ORG_COLUMNS, rows=rows))
    scope = "whole organisation" if division is None else DIVISIONS[division]
    count = sum(len(section.rows) for section in sections)
    return Document(title=f"{COMPANY} org chart, {scope}: {count} people (synthetic data)", sections=tuple(sections))


class DivisionHeadcount(BaseModel):
    """The number of people in one division."""

    division: str
    people: int


class Headcount(BaseModel):
    """Headcount per division, as a list: a dict keyed by division would give the tool an `outputSchema` with a
    schema-valued `additionalProperties`, which TypeScript SDK 1.22.0 rejects."""

    divisions: tuple[DivisionHeadcount, ...]


def headcount_summary() -> Headcount:
    """Headcount per division, for a tool whose result may be summarized."""
    counts = dict.fromkeys(DIVISIONS, 0)
    for person in people():
        counts[person.division] += 1
    return Headcount(divisions=tuple(DivisionHeadcount(division=name, people=count) for name, count in counts.items()))
