"""A seedable generator of a large, realistic supplier-contract corpus (the corpus-folder format of docs/DATA_MODEL.md).

Why generated: the benchmark needs tens of thousands of agreements with the shape of real
ones (varied countries, industries, cities, spend years, heading styles, clauses that say
the same thing in different words, some that avoid the taxonomy keywords, missing clause
types so gap reports have something to find) and every system compared must read the very
same texts. The same `seed` and sizes always give byte-identical files.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

# Bump whenever the files written change (texts or CSVs): a corpus folder with another version is
# written again rather than reused. "2": rates.csv (without it every non-EUR spend row was left
# out of the totals, 13,330 load problems at 10,000 suppliers).
GENERATOR_VERSION = "2"

# country -> (legal forms, cities with postal-code prefixes, currency, street words)
COUNTRIES = {
    "Germany": (["GmbH", "AG", "SE", "GmbH & Co. KG"], ["Berlin", "Hamburg", "Munich", "Frankfurt am Main", "Cologne",
                "Stuttgart", "Leipzig", "Bremen"], "EUR", ["Hauptstraße", "Bahnhofstraße", "Industriestraße", "Am Hafen"]),
    "France": (["SA", "SAS", "SARL"], ["Paris", "Lyon", "Marseille", "Toulouse", "Lille", "Nantes"], "EUR",
               ["Rue de la République", "Avenue Victor Hugo", "Boulevard Haussmann", "Rue du Commerce"]),
    "United Kingdom": (["Ltd", "plc", "LLP"], ["London", "Manchester", "Birmingham", "Leeds", "Edinburgh", "Bristol"],
                       "GBP", ["High Street", "Station Road", "King Street", "Victoria Road"]),
    "United States": (["Inc.", "LLC", "Corp."], ["New York", "Chicago", "Austin", "Seattle", "Boston", "Atlanta",
                      "Denver"], "USD", ["Main Street", "Market Street", "Park Avenue", "Commerce Drive"]),
    "Netherlands": (["B.V.", "N.V."], ["Amsterdam", "Rotterdam", "Utrecht", "Eindhoven", "The Hague"], "EUR",
                    ["Keizersgracht", "Stationsplein", "Industrieweg", "Havenstraat"]),
    "Switzerland": (["AG", "SA", "GmbH"], ["Zurich", "Geneva", "Basel", "Bern", "Lausanne"], "CHF",
                    ["Bahnhofstrasse", "Seestrasse", "Rue du Rhône", "Industriestrasse"]),
    "China": (["Co., Ltd.", "Technology Co., Ltd."], ["Shanghai", "Beijing", "Shenzhen", "Hangzhou", "Suzhou",
              "Guangzhou"], "CNY", ["Zhangjiang Road", "Century Avenue", "Nanjing Road", "Keji Road"]),
    "Japan": (["K.K.", "Co., Ltd."], ["Tokyo", "Osaka", "Yokohama", "Nagoya", "Fukuoka"], "JPY",
              ["Chuo-dori", "Sakura-dori", "Minato Mirai", "Shinjuku"]),
    "Sweden": (["AB"], ["Stockholm", "Gothenburg", "Malmö", "Uppsala"], "SEK",
               ["Drottninggatan", "Storgatan", "Kungsgatan", "Hamngatan"]),
    "Spain": (["S.L.", "S.A."], ["Madrid", "Barcelona", "Valencia", "Seville", "Bilbao"], "EUR",
              ["Calle Mayor", "Gran Vía", "Avenida de América", "Paseo de Gracia"]),
    "Italy": (["S.p.A.", "S.r.l."], ["Milan", "Rome", "Turin", "Bologna", "Florence"], "EUR",
              ["Via Roma", "Corso Italia", "Via Garibaldi", "Viale Europa"]),
    "India": (["Pvt. Ltd.", "Ltd."], ["Bengaluru", "Mumbai", "Pune", "Hyderabad", "Chennai"], "INR",
              ["MG Road", "Outer Ring Road", "Residency Road", "Hosur Road"]),
}
COUNTRY_WEIGHTS = [18, 9, 10, 16, 6, 4, 9, 6, 4, 6, 6, 6]

INDUSTRIES = {
    "Technology": ["Cloud Hosting", "Managed IT Services", "Data Platform", "Software Licences", "Network Services"],
    "Healthcare": ["Clinical IT Services", "Medical Devices Service", "Laboratory Services", "Imaging Archive"],
    "Logistics": ["Contract Logistics", "Freight Forwarding", "Warehousing", "Last-Mile Delivery"],
    "Manufacturing": ["Precision Parts", "Contract Manufacturing", "Tooling and Maintenance"],
    "Financial Services": ["Payment Processing", "Treasury Services", "Card Issuing"],
    "Telecommunications": ["Managed WAN", "Mobile Services", "Contact Centre Telephony"],
    "Professional Services": ["Consulting", "Legal Process Outsourcing", "Translation Services"],
    "Energy": ["Energy Supply", "Facility Energy Management"],
    "Facilities": ["Cleaning Services", "Security Guarding", "Catering"],
    "Pharmaceuticals": ["Pharmacovigilance", "Clinical Trial Services", "Cold-Chain Distribution"],
}
INDUSTRY_WEIGHTS = [24, 10, 12, 10, 8, 8, 10, 5, 6, 7]

_SYLLABLES = ["nor", "vex", "tal", "mira", "quan", "lum", "sak", "ura", "bel", "cor", "dex", "fin", "gal", "hel",
              "ion", "jor", "kal", "lin", "mon", "nex", "ori", "pra", "qua", "ros", "sol", "tri", "ven", "wal",
              "xan", "zen", "ar", "bri", "cel", "dor", "eko", "fal", "gor", "hal", "ist", "kor"]
_BRAND_WORDS = {
    "Technology": ["Cloud", "Data", "Systems", "Digital", "Networks", "Software"],
    "Healthcare": ["Health", "Medical", "Clinical", "Diagnostics", "Care"],
    "Logistics": ["Logistics", "Freight", "Transport", "Cargo"],
    "Manufacturing": ["Precision", "Industries", "Components", "Werke"],
    "Financial Services": ["Payments", "Finance", "Capital"],
    "Telecommunications": ["Telecom", "Connect", "Communications"],
    "Professional Services": ["Consulting", "Partners", "Advisory"],
    "Energy": ["Energy", "Power", "Utilities"],
    "Facilities": ["Facility Services", "Services", "Solutions"],
    "Pharmaceuticals": ["Pharma", "Life Sciences", "BioServices"],
}

# clause type -> heading variants; "*" marks a heading that avoids the taxonomy keywords
HEADINGS = {
    "Other": ["Scope of Services", "Subject Matter", "Definitions", "Service Description", "Scope"],
    "Availability": ["Service Availability", "Availability", "Uptime Commitment", "*Service Hours and Reachability",
                     "*Operating Window"],
    "Support": ["Support", "Support and Incident Response", "*Help Desk", "*Technical Hotline", "Incident Handling"],
    "Maintenance": ["Planned Maintenance", "Maintenance Windows", "*Scheduled Works", "*Preventive Servicing"],
    "Data Protection": ["Data Protection", "Privacy", "*Handling of Personal Information", "*Personal Data",
                        "GDPR Compliance"],
    "Liability": ["Limitation of Liability", "Liability", "*Caps on Damages", "*Indemnities and Limits"],
    "Termination": ["Termination", "Term and Termination", "*Ending the Agreement", "*Duration and Exit"],
    "Confidentiality": ["Confidentiality", "Confidential Information", "*Non-Disclosure", "*Secrecy"],
    "Governing Law": ["Governing Law", "Governing Law and Jurisdiction", "*Applicable Law and Venue",
                      "*Disputes"],
    "Payment": ["Payment", "Fees and Payment", "*Remuneration", "*Charges and Invoicing Cycle", "*Prices"],
    "Service Credits": ["Service Credits", "*Compensation for Missed Targets", "*Fee Reductions"],
    "Security": ["Security", "Information Security", "*Safeguards", "*Protective Measures"],
    "Force Majeure": ["Force Majeure", "*Events Beyond Reasonable Control", "*Unforeseeable Events"],
}

# clause type -> sentences; {party}/{client}/{n...}/{country}/{city} are filled per agreement.
# Several per type say the thing without the type's keywords (the classifier must use meaning).
SENTENCES = {
    "Other": [
        "{party} shall provide the services described in Annex A to {client} and its affiliates.",
        "The services cover {service} for the sites of {client} in {country}.",
        "Capitalised terms have the meaning given in this section unless the context requires otherwise.",
        "Any change to the scope requires a written change request signed by both parties.",
        "{party} shall assign a named account manager who coordinates delivery with {client}.",
        "The annexes form part of this agreement; in case of conflict the main body prevails.",
    ],
    "Availability": [
        "{party} shall ensure that the service is available {pct} % of the time in each calendar month.",
        "Availability is measured at the network edge of {party}'s data centre in {city}.",
        "The platform shall be reachable by users {pct} percent of every month, excluding announced windows.",
        "Downtime caused by {client}'s own systems is not counted against the monthly target.",
        "{party} shall report the measured uptime to {client} within {days} days after the end of each month.",
        "The service shall be operational around the clock, seven days a week.",
    ],
    "Support": [
        "{party} shall operate a service desk from 08:00 to 18:00 local time on business days.",
        "Priority 1 incidents shall be acknowledged within {hours} hours and worked on continuously until resolved.",
        "Tickets may be raised through the portal, by e-mail or by telephone.",
        "If something stops working, {client} can call the hotline and an engineer will respond within {hours} hours.",
        "Second-line specialists shall be available for escalations during business hours.",
        "Each reported fault receives a reference number and {client} is informed of progress daily.",
    ],
    "Maintenance": [
        "Planned maintenance shall take place on Sundays between 02:00 and 06:00 {city} time.",
        "{party} shall announce scheduled works at least {days} days in advance.",
        "Emergency patches may be applied at shorter notice where a vulnerability is being exploited.",
        "Equipment shall be serviced preventively every {months} months according to the manufacturer's schedule.",
        "Upgrades of the underlying software are included in the monthly charge.",
    ],
    "Data Protection": [
        "{party} processes personal data only on documented instructions of {client}.",
        "Where {party} handles information about identifiable individuals it shall follow the GDPR.",
        "Personal information shall be stored in {country} and not transferred abroad without consent.",
        "{party} shall notify {client} of any breach involving personal data within {hours} hours.",
        "A data processing agreement in the form of Annex C applies to all processing under this agreement.",
        "Records about employees and patients are deleted or returned when the services end.",
    ],
    "Liability": [
        "The total liability of either party is limited to {cap} per contract year.",
        "Neither party is liable for indirect or consequential loss, including loss of profit.",
        "The caps do not apply to damage caused intentionally or by gross negligence.",
        "Whatever the cause, compensation payable by {party} shall not exceed the fees paid in the preceding {months} months.",
        "{party} indemnifies {client} against third-party claims for infringement of intellectual property.",
    ],
    "Termination": [
        "Either party may terminate this agreement for convenience on {days} days' written notice.",
        "Either party may end this agreement with {months} months' notice to the end of a calendar quarter.",
        "{client} may cancel the agreement with immediate effect if {party} materially breaches it and does not cure within {days} days.",
        "The agreement runs for an initial term of {years} years and renews for one year at a time.",
        "On expiry {party} shall support the transition to a successor supplier for up to {months} months.",
    ],
    "Confidentiality": [
        "Each party shall keep the other party's confidential information secret and use it only for this agreement.",
        "Business information received from the other side shall not be disclosed to third parties.",
        "The obligation of secrecy survives the end of the agreement by {years} years.",
        "Information that is publicly available or independently developed is not covered by this section.",
        "Staff with access to non-public information of {client} shall sign a non-disclosure undertaking.",
    ],
    "Governing Law": [
        "This agreement is governed by the laws of {country}.",
        "The courts of {city} have exclusive jurisdiction over all disputes arising from this agreement.",
        "The UN Convention on Contracts for the International Sale of Goods does not apply.",
        "Disputes shall first be escalated to the executive sponsors before either party goes to court in {city}.",
    ],
    "Payment": [
        "{client} shall pay the fees set out in Annex B within {days} days of receipt of a correct invoice.",
        "{party} invoices monthly in arrears in {currency}.",
        "The monthly charge is {amount} {currency}, payable {days} days after the bill is received.",
        "Prices are fixed for the first {years} years and may then be adjusted once a year in line with inflation.",
        "Disputed items do not delay settlement of the undisputed remainder.",
    ],
    "Service Credits": [
        "If monthly availability falls below the target, {client} receives a service credit of {credit} % of the monthly fee.",
        "For every full percentage point below the agreed level the monthly charge is reduced by {credit} percent.",
        "Credits are capped at {cap_pct} % of the monthly fee and are offset against the next invoice.",
        "The reduction is {client}'s sole financial remedy for missed targets unless the shortfall persists for {months} months.",
    ],
    "Security": [
        "{party} shall maintain an information security management system certified to ISO/IEC 27001.",
        "Access to production systems requires multi-factor authentication and is logged.",
        "{party} shall have the environment tested by independent penetration testers every year.",
        "All stored and transmitted records are encrypted with current industry-standard algorithms.",
        "Vulnerabilities rated critical shall be remediated within {days} days of discovery.",
    ],
    "Force Majeure": [
        "Neither party is responsible for failure to perform caused by force majeure events.",
        "Neither party is responsible for a delay caused by circumstances beyond its reasonable control, such as floods, strikes or pandemics.",
        "The affected party shall inform the other without delay and use reasonable efforts to limit the consequences.",
        "If such circumstances last more than {days} days, either party may withdraw from the affected services.",
    ],
}

MANDATORY_OFTEN = {"Termination": 0.8, "Liability": 0.8, "Data Protection": 0.75}
TYPE_ORDER = ["Other", "Availability", "Support", "Maintenance", "Service Credits", "Security", "Data Protection",
              "Confidentiality", "Payment", "Liability", "Force Majeure", "Termination", "Governing Law"]
HEADING_STYLES = ["md_numbered", "md_plain", "numbered", "section", "article", "clause"]
SPEND_YEARS = (2022, 2023, 2024)
# 1 unit = this many EUR (the corpus's base currency); written to rates.csv for every spend year
RATES_TO_EUR = {"GBP": 1.17, "USD": 0.92, "CHF": 1.04, "CNY": 0.13, "JPY": 0.0062, "INR": 0.011, "SEK": 0.088}


@dataclass
class GeneratedCorpus:
    path: str
    seed: int
    suppliers: int
    agreements: int
    clauses: int
    clauses_per_agreement: int
    generator_version: str = GENERATOR_VERSION

    @property
    def key(self) -> str:
        """Identifies the texts (for caches of their embeddings)."""
        return f"g{self.generator_version}-s{self.seed}-n{self.suppliers}-c{self.clauses_per_agreement}"


def _brand(rng: random.Random, used: set[str], industry: str, legal: str) -> str:
    for _ in range(1000):
        stem = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 2, 3)))).capitalize()
        name = f"{stem} {rng.choice(_BRAND_WORDS[industry])} {legal}"
        if name not in used:
            used.add(name)
            return name
    raise RuntimeError("could not find a unique company name")  # pragma: no cover


def _heading(style: str, n: int, title: str) -> str:
    return {"md_numbered": f"## {n}. {title}", "md_plain": f"## {title}", "numbered": f"{n}. {title}",
            "section": f"Section {n} {title}", "article": f"Article {n} {title}", "clause": f"Clause {n} {title}"}[style]


def _fill(rng: random.Random, sentence: str, ctx: dict) -> str:
    values = dict(ctx)
    values.update(pct=rng.choice(["99.5", "99.7", "99.8", "99.9", "99.95"]), days=rng.choice([5, 10, 14, 30, 45, 60, 90]),
                  hours=rng.choice([1, 2, 4, 8, 24, 48, 72]), months=rng.choice([3, 6, 12, 18]),
                  years=rng.choice([2, 3, 5]), credit=rng.choice([2, 5, 10, 15]),
                  cap_pct=rng.choice([20, 25, 30, 50]),
                  cap=f"{ctx['currency']} {rng.choice([100, 250, 500, 1000, 2000]) * 1000:,}",
                  amount=f"{rng.randint(5, 400) * 100:,}")
    return sentence.format(**values)


def _clause_types(rng: random.Random, n: int) -> list[str]:
    """`n` clause types in a plausible order: scope first, often-required ones mostly present."""
    chosen = {"Other"}
    for t, p in MANDATORY_OFTEN.items():
        if rng.random() < p:
            chosen.add(t)
    rest = [t for t in TYPE_ORDER if t not in chosen]
    rng.shuffle(rest)
    for t in rest:
        if len(chosen) >= n:
            break
        if t not in MANDATORY_OFTEN:
            chosen.add(t)
    while len(chosen) > n:  # only when n is tiny
        chosen.discard(sorted(chosen - {"Other"})[0])
    types = [t for t in TYPE_ORDER if t in chosen]
    # a second "Other" clause (definitions/annex) when n exceeds the distinct types
    while len(types) < n:
        types.insert(rng.randint(1, len(types)), "Other")
    return types


def generate(out: Path | str, suppliers: int = 10_000, clauses_per_agreement: int = 10, seed: int = 42,
             force: bool = False) -> GeneratedCorpus:
    """Write (or reuse, when the manifest matches) a corpus folder; returns its description."""
    out = Path(out)
    manifest = out / "generated.json"
    if not force and manifest.is_file():
        try:
            info = GeneratedCorpus(**json.loads(manifest.read_text(encoding="utf-8")))
            if (info.seed, info.suppliers, info.clauses_per_agreement, info.generator_version) == (
                    seed, suppliers, clauses_per_agreement, GENERATOR_VERSION):
                info.path = str(out)
                return info
        except (ValueError, TypeError):
            pass
    rng = random.Random(seed)
    contracts = out / "contracts"
    contracts.mkdir(parents=True, exist_ok=True)
    for old in contracts.glob("*"):
        if old.is_file():
            old.unlink()
    countries = list(COUNTRIES)
    industries = list(INDUSTRIES)
    used: set[str] = set()
    companies, addresses, spend, agreements = [], [], [], []
    n_clauses = 0
    for i in range(1, suppliers + 1):
        country = rng.choices(countries, COUNTRY_WEIGHTS)[0]
        legal_forms, cities, currency, streets = COUNTRIES[country]
        industry = rng.choices(industries, INDUSTRY_WEIGHTS)[0]
        name = _brand(rng, used, industry, rng.choice(legal_forms))
        short = name.split(" ")[0]
        aliases = [short] if rng.random() < 0.6 else []
        if rng.random() < 0.2:
            aliases.append("".join(w[0] for w in name.split(" ")[:2]).upper() + f"-{i % 97}")
        companies.append([name, country, industry, "|".join(aliases)])
        city = rng.choice(cities)
        addresses.append([name, f"{rng.choice(streets)} {rng.randint(1, 240)}", city, f"{rng.randint(10000, 99999)}",
                          country])
        category = rng.choice(INDUSTRIES[industry])
        base = rng.lognormvariate(11.6, 1.1)  # median ~110k, long tail into millions
        years = [y for y in SPEND_YEARS if rng.random() < 0.8] or [SPEND_YEARS[-1]]
        for y in years:
            spend.append([name, y, f"{base * rng.uniform(0.8, 1.25):.2f}", currency, category])
        sla_id = f"BEN-{i:06d}"
        style = rng.choice(HEADING_STYLES)
        ext = ".md" if style.startswith("md") or rng.random() < 0.3 else ".txt"
        file = f"{sla_id.lower()}{ext}"
        client = "Aurelia Group SE"
        ctx = {"party": short, "client": "the Client", "country": country, "city": city, "currency": currency,
               "service": category.lower()}
        lines = []
        if style.startswith("md"):
            lines.append(f"# {category} Agreement\n")
        else:
            lines.append(f"{category.upper()} AGREEMENT\n")
        year = rng.choice(SPEND_YEARS)
        date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        lines.append(f"This agreement is made on {date} between {name} (\"{short}\") and {client} "
                     f"(\"the Client\"). {short} provides {category.lower()} to the Client in {country}.\n")
        types = _clause_types(rng, clauses_per_agreement)
        for pos, ctype in enumerate(types, 1):
            heading = rng.choice(HEADINGS[ctype]).lstrip("*")
            bank = SENTENCES[ctype]
            k = min(len(bank), rng.choice((2, 3, 3, 4)))
            text = " ".join(_fill(rng, s, ctx) for s in rng.sample(bank, k))
            lines.append(_heading(style, pos, heading) + "\n")
            lines.append(text + "\n")
        n_clauses += len(types)
        (contracts / file).write_text("\n".join(lines), encoding="utf-8")
        agreements.append([sla_id, name, file, date, category, country])
    _csv(out / "companies.csv", ["name", "country", "industry", "aliases"], companies)
    _csv(out / "addresses.csv", ["company", "street", "city", "postal_code", "country"], addresses)
    _csv(out / "spend.csv", ["company", "year", "amount", "currency", "category"], spend)
    used_currencies = sorted({row[3] for row in spend} - {"EUR"})
    _csv(out / "rates.csv", ["currency", "year", "rate"],
         [[c, y, RATES_TO_EUR[c]] for c in used_currencies for y in SPEND_YEARS])
    _csv(out / "agreements.csv", ["sla_id", "company", "file", "effective_date", "service_name", "governing_law"],
         agreements)
    info = GeneratedCorpus(str(out), seed, suppliers, len(agreements), n_clauses, clauses_per_agreement)
    manifest.write_text(json.dumps(asdict(info), indent=2) + "\n", encoding="utf-8")
    return info


def _csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.splitlines()[0])
    p.add_argument("out", help="corpus folder to write")
    p.add_argument("--suppliers", type=int, default=10_000)
    p.add_argument("--clauses-per-agreement", type=int, default=10)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args(argv)
    info = generate(args.out, args.suppliers, args.clauses_per_agreement, args.seed, force=True)
    print(json.dumps(asdict(info), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
