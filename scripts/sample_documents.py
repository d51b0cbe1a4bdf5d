"""The small documents that the generated examples and docs are made from (invented figures)."""

from __future__ import annotations

from mcp_rendering.document import Document, Row, Section

YEARS = ("2023", "2024", "2025")


def statement() -> Document:
    """An income statement (French chart of accounts, thousands of euros, three years) with one null cell."""
    return Document(
        title="Compte de résultat (k€)",
        sections=(
            Section(
                id="produits",
                title="Produits d'exploitation",
                columns=YEARS,
                rows=(
                    Row(id="706", label="706 Prestations de services", values=(4210, 4585, 4902)),
                    # No ancillary revenue figure for 2024: a null, not a zero.
                    Row(id="708", label="708 Produits des activités annexes", values=(85, None, 64)),
                    Row(id="tp", label="Total produits d'exploitation", values=(4295, 4585, 4966), kind="subtotal"),
                ),
            ),
            Section(
                id="charges",
                title="Charges d'exploitation",
                columns=YEARS,
                rows=(
                    Row(id="604", label="604 Achats d'études et prestations", values=(1120, 1205, 1260)),
                    Row(id="641", label="641 Rémunérations du personnel", values=(2150, 2290, 2410)),
                    Row(id="681", label="681 Dotations aux amortissements", values=(310, 325, 340)),
                    Row(id="tc", label="Total charges d'exploitation", values=(3580, 3820, 4010), kind="subtotal"),
                    Row(id="rex", label="Résultat d'exploitation", values=(715, 765, 956), kind="subtotal"),
                ),
            ),
            Section(
                id="financier",
                title="Résultat financier",
                columns=YEARS,
                rows=(
                    Row(id="761", label="761 Produits de participations", values=(40, 42, 42)),
                    Row(id="661", label="661 Charges d'intérêts", values=(95, 88, 80)),
                    Row(id="rf", label="Résultat financier", values=(-55, -46, -38), kind="subtotal"),
                    Row(id="rcai", label="Résultat courant avant impôts", values=(660, 719, 918), kind="subtotal"),
                ),
            ),
            Section(
                id="net",
                title="Impôts et résultat net",
                columns=YEARS,
                rows=(
                    Row(id="695", label="695 Impôts sur les bénéfices", values=(165, 180, 230)),
                    Row(id="rn", label="Résultat net", values=(495, 539, 688), kind="total"),
                ),
            ),
        ),
    )


def short_statement() -> Document:
    """The first section of `statement()` alone: small enough to read in a specification's example."""
    full = statement()
    return full.model_copy(update={"sections": full.sections[:1]})


def ledger() -> Document:
    """Five general-ledger lines, for the example of a bounded page."""
    return Document(
        title="Grand livre 2025 (extrait)",
        sections=(
            Section(
                id="capitaux",
                title="Capitaux",
                columns=("Solde",),
                rows=tuple(
                    Row(id=account, label=f"{account} {name}", values=(balance,))
                    for account, name, balance in (
                        ("101000", "Capital social", 50000),
                        ("106100", "Réserve légale", 5000),
                        ("110000", "Report à nouveau", 12840),
                        ("120000", "Résultat de l'exercice", 688),
                        ("164000", "Emprunts auprès des établissements de crédit", 210000),
                    )
                ),
            ),
        ),
    )
