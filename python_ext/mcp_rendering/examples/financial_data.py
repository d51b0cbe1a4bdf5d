"""Synthetic annual accounts of a fictional French company, laid out in the order of the plan comptable général.

The figures are invented. They are internally consistent, so a reader can check them by hand: every subtotal is
the sum of the rows above it, net income flows from the income statement into equity, and the balance sheet
balances. Cash is the balancing account of the assets side. One value is genuinely missing (an operating subsidy
line that did not exist in the earlier year), and one growth rate is undefined (net income started from a loss),
so the document carries real nulls.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from mcp_rendering.document import Cell, Document, Row, RowKind, Section

__all__ = ["COMPANY", "FISCAL_YEARS", "HISTORY_YEARS", "cagr", "financial_statements", "key_figures"]

COMPANY = "Atelier Fictif SAS"
"""The (invented) reporting entity."""

FISCAL_YEARS = ("FY2025", "FY2024")
"""The two years a French statement shows side by side: the year closed and the one before it."""

HISTORY_YEARS = ("FY2021", "FY2022", "FY2023", "FY2024", "FY2025")
"""The five years of the multi-year section."""

_Amounts = tuple[int | None, int | None]

# Income statement items, in PCG order: (row id, PCG accounts, label, (FY2025, FY2024)).
_OPERATING_INCOME: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("is-707", "707", "Ventes de marchandises", (1_842_300, 1_695_100)),
    ("is-706", "706", "Production vendue (services)", (3_215_800, 2_948_400)),
    ("is-74", "74", "Subventions d'exploitation", (48_000, None)),
    ("is-781", "781", "Reprises sur provisions", (12_400, 9_800)),
)
_OPERATING_EXPENSES: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("is-607", "607", "Achats de marchandises", (1_104_500, 1_021_300)),
    ("is-6037", "6037", "Variation des stocks de marchandises", (-18_200, 7_600)),
    ("is-61-62", "61/62", "Autres achats et charges externes", (842_100, 790_450)),
    ("is-63", "63", "Impôts, taxes et versements assimilés", (71_300, 66_900)),
    ("is-641", "641", "Salaires et traitements", (1_598_000, 1_472_000)),
    ("is-645", "645", "Charges sociales", (671_200, 618_200)),
    ("is-681", "681", "Dotations aux amortissements et provisions", (203_700, 188_900)),
)
_FINANCIAL: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("is-76", "76", "Produits financiers", (14_600, 6_100)),
    ("is-66", "66", "Charges financières", (38_900, 42_300)),
)
_EXCEPTIONAL: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("is-77", "77", "Produits exceptionnels", (22_000, 3_500)),
    ("is-67", "67", "Charges exceptionnelles", (9_400, 27_800)),
)
_BELOW_THE_LINE: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("is-691", "691", "Participation des salariés aux résultats", (41_000, 30_500)),
    ("is-695", "695", "Impôts sur les bénéfices", (146_300, 105_600)),
)

# Balance sheet, assets side (cash is computed so that the sheet balances).
_FIXED_ASSETS: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("bs-20", "20", "Immobilisations incorporelles", (186_000, 204_500)),
    ("bs-21", "21", "Immobilisations corporelles", (1_127_400, 1_063_800)),
    ("bs-26-27", "26/27", "Immobilisations financières", (64_200, 58_700)),
)
_CURRENT_ASSETS_BEFORE_CASH: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("bs-37", "37", "Stocks de marchandises", (312_600, 294_400)),
    ("bs-411", "411", "Clients et comptes rattachés", (868_900, 801_300)),
    ("bs-46", "46", "Autres créances", (97_300, 88_100)),
)
_PREPAID: tuple[str, str, str, _Amounts] = ("bs-486", "486", "Charges constatées d'avance", (23_800, 19_600))

# Balance sheet, equity and liabilities side (the year's result comes from the income statement).
_EQUITY_BEFORE_RESULT: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("bs-101", "101", "Capital social", (500_000, 500_000)),
    ("bs-1061", "1061", "Réserve légale", (50_000, 50_000)),
    ("bs-1068", "1068", "Autres réserves", (846_900, 640_300)),
    ("bs-11", "11", "Report à nouveau", (31_400, 18_000)),
)
_PROVISIONS: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("bs-15", "15", "Provisions pour risques et charges", (58_000, 61_500)),
)
_DEBTS: tuple[tuple[str, str, str, _Amounts], ...] = (
    ("bs-164", "164", "Emprunts auprès des établissements de crédit", (612_000, 734_000)),
    ("bs-401", "401", "Fournisseurs et comptes rattachés", (514_700, 478_200)),
    ("bs-42-44", "42/43/44", "Dettes fiscales et sociales", (402_600, 371_900)),
    ("bs-455", "455", "Comptes courants d'associés", (75_000, 75_000)),
)

# Multi-year history before the two years of the statements: (FY2021, FY2022, FY2023).
_HISTORY_REVENUE = (3_906_000, 4_188_500, 4_377_200)
_HISTORY_OPERATING = (142_300, 263_900, 337_800)
_HISTORY_NET = (-64_800, 121_700, 168_400)
_HISTORY_EQUITY = (1_064_000, 1_185_700, 1_354_100)
_HISTORY_HEADCOUNT = (41, 44, 46)
_HEADCOUNT = (53, 49)  # FY2025, FY2024


def _sum(rows: Sequence[Row], year: int) -> int:
    """Sum one year's column of ordinary rows, a null counting as nothing (the account was not used)."""
    total = 0
    for row in rows:
        value = row.values[1 + year]
        if isinstance(value, int) and not isinstance(value, bool):
            total += value
    return total


def _row(row_id: str, accounts: str, label: str, amounts: _Amounts, *, kind: RowKind = "item", level: int = 1) -> Row:
    return Row(id=row_id, label=label, values=(accounts, *amounts), kind=kind, level=level)


def _items(spec: Sequence[tuple[str, str, str, _Amounts]]) -> list[Row]:
    return [_row(row_id, accounts, label, amounts) for row_id, accounts, label, amounts in spec]


def _subtotal(row_id: str, label: str, rows: Sequence[Row], *, kind: RowKind = "subtotal") -> Row:
    return _row(row_id, "", label, (_sum(rows, 0), _sum(rows, 1)), kind=kind, level=0)


def _negated(rows: Sequence[Row]) -> list[Row]:
    """Charge rows as negative amounts, so that a result is a plain sum (charges are shown positive, as in the
    PCG layout)."""
    out: list[Row] = []
    for row in rows:
        values: list[Cell] = [row.values[0]]
        for value in row.values[1:]:
            values.append(-value if isinstance(value, int) and not isinstance(value, bool) else value)
        out.append(row.model_copy(update={"values": tuple(values)}))
    return out


def _income_statement() -> tuple[Section, tuple[int, int], tuple[int, int]]:
    """The income statement (compte de résultat), with the operating result and the net result per year."""
    income = _items(_OPERATING_INCOME)
    expenses = _items(_OPERATING_EXPENSES)
    total_income = _subtotal("is-total-produits-exploitation", "Total des produits d'exploitation", income)
    total_expenses = _subtotal("is-total-charges-exploitation", "Total des charges d'exploitation", expenses)
    operating = _subtotal("is-resultat-exploitation", "RÉSULTAT D'EXPLOITATION", [total_income, *_negated(expenses)])
    financial = _items(_FINANCIAL)
    financial_result = _subtotal(
        "is-resultat-financier", "Résultat financier", [financial[0], *_negated(financial[1:])]
    )
    current = _subtotal("is-rcai", "RÉSULTAT COURANT AVANT IMPÔTS", [operating, financial_result])
    exceptional = _items(_EXCEPTIONAL)
    exceptional_result = _subtotal(
        "is-resultat-exceptionnel", "Résultat exceptionnel", [exceptional[0], *_negated(exceptional[1:])]
    )
    below = _items(_BELOW_THE_LINE)
    net = _subtotal(
        "is-resultat-net", "RÉSULTAT NET DE L'EXERCICE", [current, exceptional_result, *_negated(below)], kind="total"
    )
    rows = [
        *income,
        total_income,
        *expenses,
        total_expenses,
        operating,
        *financial,
        financial_result,
        current,
        *exceptional,
        exceptional_result,
        *below,
        net,
    ]
    section = Section(
        id="compte-de-resultat",
        title="Compte de résultat (income statement), in euros",
        columns=("PCG", *FISCAL_YEARS),
        rows=tuple(rows),
    )
    return section, _amounts(operating), _amounts(net)


def _amounts(row: Row) -> tuple[int, int]:
    """The two years of a computed row (never null: a computed row sums what is there)."""
    first, second = row.values[1], row.values[2]
    assert isinstance(first, int) and isinstance(second, int)
    return (first, second)


def _balance_sheet(net: tuple[int, int]) -> tuple[Section, Section, tuple[int, int]]:
    """Both sides of the balance sheet (bilan); returns them and the equity per year."""
    equity_rows = [*_items(_EQUITY_BEFORE_RESULT), _row("bs-12", "12", "Résultat de l'exercice", net)]
    total_equity = _subtotal("bs-total-capitaux-propres", "Total capitaux propres", equity_rows)
    provisions = _items(_PROVISIONS)
    total_provisions = _subtotal("bs-total-provisions", "Total provisions", provisions)
    debts = _items(_DEBTS)
    total_debts = _subtotal("bs-total-dettes", "Total dettes", debts)
    grand_total = _subtotal(
        "bs-total-passif", "TOTAL PASSIF", [total_equity, total_provisions, total_debts], kind="total"
    )

    fixed = _items(_FIXED_ASSETS)
    total_fixed = _subtotal("bs-total-actif-immobilise", "Total actif immobilisé", fixed)
    current_before_cash = [*_items(_CURRENT_ASSETS_BEFORE_CASH), _row(*_PREPAID)]
    known = _sum([total_fixed, *current_before_cash], 0), _sum([total_fixed, *current_before_cash], 1)
    target = _amounts(grand_total)
    cash = _row("bs-512", "512/53", "Disponibilités", (target[0] - known[0], target[1] - known[1]))
    # Cash sits before prepaid expenses, as in the PCG layout.
    current = [*current_before_cash[:-1], cash, current_before_cash[-1]]
    total_current = _subtotal("bs-total-actif-circulant", "Total actif circulant", current)
    total_assets = _subtotal("bs-total-actif", "TOTAL ACTIF", [total_fixed, total_current], kind="total")

    assets = Section(
        id="bilan-actif",
        title="Bilan — actif (balance sheet, assets), in euros",
        columns=("PCG", *FISCAL_YEARS),
        rows=(*fixed, total_fixed, *current, total_current, total_assets),
    )
    liabilities = Section(
        id="bilan-passif",
        title="Bilan — passif (balance sheet, equity and liabilities), in euros",
        columns=("PCG", *FISCAL_YEARS),
        rows=(
            *equity_rows,
            total_equity,
            *provisions,
            total_provisions,
            *debts,
            total_debts,
            grand_total,
        ),
    )
    return assets, liabilities, _amounts(total_equity)


def cagr(first: float, last: float, years: int) -> float | None:
    """Compound annual growth rate between two values `years` apart; `None` when it is undefined.

    A rate through a sign change (a loss turning into a profit) or from zero has no meaning, so it is a null
    rather than a made-up number.
    """
    if years <= 0 or first <= 0 or last <= 0:
        return None
    return (last / first) ** (1.0 / years) - 1.0


def _percent(rate: float | None) -> str | None:
    return None if rate is None else f"{rate * 100:+.1f} %"


def _history_row(row_id: str, label: str, history: tuple[int, int, int], recent: tuple[int, int]) -> Row:
    fy2025, fy2024 = recent
    series = (*history, fy2024, fy2025)
    rate = cagr(series[0], series[-1], len(series) - 1)
    return Row(id=row_id, label=label, values=(*series, _percent(rate)))


def financial_statements() -> Document:
    """The full annual accounts: balance sheet, income statement, and the five-year growth section."""
    income_statement, operating, net = _income_statement()
    assets, liabilities, equity = _balance_sheet(net)
    revenue = (
        _sum(_items(_OPERATING_INCOME[:2]), 0),
        _sum(_items(_OPERATING_INCOME[:2]), 1),
    )
    growth = Section(
        id="cagr-5-ans",
        title="Évolution sur cinq ans et TCAM (five-year history and CAGR)",
        columns=(*HISTORY_YEARS, "TCAM / CAGR 2021-2025"),
        rows=(
            _history_row("hist-ca", "Chiffre d'affaires net", _HISTORY_REVENUE, revenue),
            _history_row("hist-rex", "Résultat d'exploitation", _HISTORY_OPERATING, operating),
            _history_row("hist-rn", "Résultat net", _HISTORY_NET, net),
            _history_row("hist-cp", "Capitaux propres", _HISTORY_EQUITY, equity),
            _history_row("hist-eff", "Effectif moyen (salariés)", _HISTORY_HEADCOUNT, _HEADCOUNT),
        ),
    )
    return Document(
        title=f"{COMPANY} — comptes annuels {FISCAL_YEARS[0]} (plan comptable général, synthetic data)",
        sections=(assets, liabilities, income_statement, growth),
    )


class KeyFigures(BaseModel):
    """Headline numbers of the accounts.

    A model rather than a dict: a dict return type gives the tool an `outputSchema` whose `additionalProperties` is
    a schema object, which TypeScript SDK 1.22.0 rejects for the whole tools/list (measured by the interop harness).
    """

    company: str
    fiscal_year: str
    revenue: int | None
    operating_result: int | None
    net_result: int | None
    total_assets: int | None
    equity: int | None
    revenue_cagr_2021_2025: str | None


def key_figures() -> KeyFigures:
    """A handful of headline numbers from the same accounts, for a tool whose result may be summarized."""
    document = financial_statements()
    by_id = {row.id: row for section in document.sections for row in section.rows}

    def year(row_id: str) -> int | None:
        value = by_id[row_id].values[1]
        return value if isinstance(value, int) else None

    growth = by_id["hist-ca"].values[-1]
    return KeyFigures(
        company=COMPANY,
        fiscal_year=FISCAL_YEARS[0],
        revenue=_sum([by_id["is-707"], by_id["is-706"]], 0),
        operating_result=year("is-resultat-exploitation"),
        net_result=year("is-resultat-net"),
        total_assets=year("bs-total-actif"),
        equity=year("bs-total-capitaux-propres"),
        revenue_cagr_2021_2025=growth if isinstance(growth, str) else None,
    )
