"""The English cases of the tender dev corpus (text written for pincite; no real tender).

The same shape as `tenders_dev_es`: documents as blocks or HTML, optional revisions, gold.
"""

from __future__ import annotations

from typing import Any

BLANK = {"blank": True}


def gbp(amount: int | float, **extra: Any) -> dict[str, Any]:
    return {"amount": amount, "currency": "GBP", **extra}


def usd(amount: int | float, **extra: Any) -> dict[str, Any]:
    return {"amount": amount, "currency": "USD", **extra}


# ---- 1. a contract notice in the numbered-section form (DOCX) -----------------------------

PRINT_DOCX = [
    ("h1", "Contract notice — Services"),
    ("h2", "Section I: Contracting authority"),
    ("p", "I.1) Name and addresses"),
    ("p", "Northfield Borough Council, Civic Centre, Market Street, Northfield NF1 2AB. "
          "Contact: Corporate Procurement Team."),
    ("h2", "Section II: Object"),
    ("p", "II.1.1) Title: Managed print and document services 2026–2029"),
    ("p", "II.1.4) Short description: Provision of managed print services, including the supply, "
          "maintenance and consumables of approximately 240 multifunction devices across the "
          "Council's estate."),
    ("p", "II.1.5) Estimated total value: Value excluding VAT: 840,000.00 GBP"),
    ("p", "II.1.6) Information about lots: This contract is divided into lots: no"),
    ("p", "II.2.5) Award criteria"),
    ("table", [["Criterion", "Weighting"], ["Quality: technical and service proposal", "60 %"],
               ["Price", "40 %"]]),
    ("p", "II.2.7) Duration of the contract: Duration in months: 36. This contract is subject to "
          "renewal: yes. Description of renewals: one optional extension of up to 12 months."),
    ("h2", "Section III: Legal, economic, financial and technical information"),
    ("p", "III.1.2) Economic and financial standing: Minimum annual turnover of GBP 1,200,000 in "
          "each of the last two financial years."),
    ("p", "III.1.3) Technical and professional ability: Bidders shall evidence at least three "
          "contracts of similar scope delivered within the last three years."),
    ("h2", "Section IV: Procedure"),
    ("p", "IV.1.1) Type of procedure: Open procedure"),
    ("p", "IV.2.2) Time limit for receipt of tenders or requests to participate: "
          "Date: 14/05/2026 Local time: 12:00"),
    ("p", "IV.2.7) Conditions for opening of tenders: Date: 21/05/2026 Local time: 10:00"),
    ("h2", "Section VI: Complementary information"),
    ("p", "VI.3) Additional information: Payment terms are 30 days from receipt of a valid, "
          "undisputed invoice."),
]

PRINT = {
    "case": "en-print-services-notice", "lang": "en",
    "docs": [("contract-notice.docx", None, PRINT_DOCX)],
    "gold": {
        "object": {"value": "Provision of managed print services, including the supply, "
                            "maintenance and consumables of approximately 240 multifunction "
                            "devices across the Council's estate",
                   "also": ["Managed print and document services 2026–2029"]},
        "contracting_authority": "Northfield Borough Council",
        "procedure": "open",
        "budget.estimated_value": gbp(840000, vat="excluded"),
        "duration": {"value": 36, "unit": "months"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-05-14", "time": "12:00"},
        "economic_solvency.min_annual_turnover": gbp(1200000),
        "technical_solvency.min_similar_contracts": 3,
        "award_criteria.price_weight": {"percent": 40},
        "award_criteria.quality_weight": {"percent": 60},
        "payment.term_days": 30,
    },
}


# ---- 2. an invitation to tender with a key-facts table and a form of tender (PDF) --------

QUAY_PDF = [
    ("title", "INVITATION TO TENDER"),
    ("p", "Resurfacing of Quay 3, Eastport Harbour — Reference EHA/2026/07"),
    ("h2", "1 Introduction"),
    ("p", "1.1 Eastport Harbour Authority (the “Authority”) invites tenders for works at Quay 3."),
    ("p", "1.2 The purpose of the contract is the resurfacing of the Quay 3 deck and the "
          "replacement of its surface drainage channels."),
    ("p", "1.3 This procurement follows the open procedure; any interested contractor may "
          "submit a tender."),
    ("h2", "2 Key information"),
    ("table", [["Item", "Detail"], ["Budget (excluding VAT)", "£2,350,000"],
               ["Contract period", "18 months from commencement"],
               ["Tender return date", "3 July 2026, 12:00 noon"],
               ["Lots", "Single lot"]]),
    ("h2", "3 Selection"),
    ("p", "3.1 Bidders must demonstrate an average annual turnover of not less than £4,000,000 "
          "over the last three financial years."),
    ("p", "3.2 Bidders must provide details of at least two contracts of a similar nature and "
          "value completed within the last five years."),
    ("h2", "4 Security"),
    ("p", "4.1 No bid bond is required with the tender."),
    ("p", "4.2 The successful tenderer shall provide a performance bond equal to 10% of the "
          "contract sum."),
    ("h2", "5 Award"),
    ("p", "5.1 Tenders will be evaluated on the most economically advantageous basis using the "
          "following weightings:"),
    ("table", [["Criterion", "Weighting"], ["Price", "70%"], ["Quality", "30%"]]),
    ("h2", "6 Contract terms"),
    ("p", "6.1 Liquidated damages for late completion shall be £1,500 per day."),
    ("p", "6.2 The Contractor shall not sub-let more than 30% of the value of the Works without "
          "the Authority's written consent."),
    ("p", "6.3 The Authority will pay valid invoices within 30 days of receipt."),
    ("break",),
    ("h2", "Appendix A — Form of Tender"),
    ("p", "To: Eastport Harbour Authority"),
    ("p", "We, the undersigned, offer to carry out the Works for the sum of £______________ "
          "(excluding VAT) and to complete them within ______ months of commencement."),
    ("p", "We undertake to provide a performance bond of ____% of the contract sum if our "
          "tender is accepted."),
    ("p", "Dated this ______ day of ______________ 20____"),
    ("p", "Signed ____________________ for and on behalf of ____________________"),
]

QUAY = {
    "case": "en-quay-itt", "lang": "en",
    "docs": [("itt.pdf", {"font": "Helvetica", "footer": "EHA/2026/07 — Invitation to Tender"},
              QUAY_PDF)],
    "gold": {
        "object": {"value": "the resurfacing of the Quay 3 deck and the replacement of its "
                            "surface drainage channels"},
        "contracting_authority": "Eastport Harbour Authority",
        "procedure": "open",
        "budget.base_excl_vat": gbp(2350000, vat="excluded"),
        "duration": {"value": 18, "unit": "months"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-07-03", "time": "12:00"},
        "economic_solvency.min_annual_turnover": gbp(4000000),
        "technical_solvency.min_similar_contracts": 2,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 10},
        "award_criteria.price_weight": {"percent": 70},
        "award_criteria.quality_weight": {"percent": 30},
        "subcontracting.max_percent": {"percent": 30},
        "penalties.delay_per_day": gbp(1500),
        "payment.term_days": 30,
    },
}


# ---- 3. an RFP template never filled in (HTML) ---------------------------------------------

RFP_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>RFP template — website</title></head>
<body>
<h1>Request for Proposals — Website Redesign and Hosting</h1>
<p>Issued by: [Name of Agency]</p>
<p>This Request for Proposals (RFP) is dated ______, 2020.</p>
<h2>1. Purpose</h2>
<p>The purpose of the contract is to redesign, build and host the agency's public website, including content migration and accessibility testing.</p>
<h2>2. Schedule</h2>
<table>
<tr><th>Event</th><th>Date</th></tr>
<tr><td>RFP issued</td><td>[insert date]</td></tr>
<tr><td>Questions due</td><td>[insert date]</td></tr>
<tr><td>Proposals due</td><td>[insert date], 5:00 p.m. local time</td></tr>
</table>
<p>Proposals are due no later than 5:00 p.m. on ____________, 2020.</p>
<h2>3. Budget</h2>
<p>The not-to-exceed budget for this engagement is $[amount], excluding taxes.</p>
<h2>4. Term</h2>
<p>The initial term of the contract will be ____ months, with up to two optional renewals of twelve months each.</p>
<h2>5. Minimum qualifications</h2>
<ul>
<li>Annual revenue of at least $[●] in the most recent fiscal year.</li>
<li>At least X similar projects completed in the last three years.</li>
</ul>
<h2>6. Evaluation</h2>
<table>
<tr><th>Criterion</th><th>Weight</th></tr>
<tr><td>Technical approach and quality</td><td>X%</td></tr>
<tr><td>Price</td><td>X%</td></tr>
</table>
<h2>7. Payment</h2>
<p>Invoices will be paid within thirty (30) days of approval.</p>
<h2>8. Bonds and subcontracting</h2>
<p>No proposal bond is required. A performance bond of [●]% of the contract value will be required from the selected vendor.</p>
<p>The vendor may subcontract up to ____% of the work with the agency's approval.</p>
</body></html>
"""

RFP = {
    "case": "en-website-rfp-template", "lang": "en",
    "docs": [("rfp.html", None, RFP_HTML)],
    "gold": {
        "object": {"value": "to redesign, build and host the agency's public website, including "
                            "content migration and accessibility testing"},
        "contracting_authority": BLANK,
        "budget.base_excl_vat": BLANK,
        "duration": BLANK,
        "deadline.submission": BLANK,
        "economic_solvency.min_annual_turnover": BLANK,
        "technical_solvency.min_similar_contracts": BLANK,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": BLANK,
        "award_criteria.price_weight": BLANK,
        "award_criteria.quality_weight": BLANK,
        "subcontracting.max_percent": BLANK,
        "payment.term_days": 30,
    },
}


# ---- 4. a framework tender (DOCX) with its selection annex (PDF) --------------------------

FRAMEWORK_DOCX = [
    ("h1", "Framework Agreement for Facilities Cleaning Services"),
    ("p", "Tender document issued by Ravensmoor County Council"),
    ("h2", "1. About this tender"),
    ("p", "Ravensmoor County Council (the contracting authority) intends to appoint up to three "
          "suppliers to a framework agreement. The subject matter of the contract is the "
          "provision of cleaning services for the Council's offices, libraries and depots."),
    ("h2", "2. Procedure and lots"),
    ("p", "The tender is run under the restricted procedure: only shortlisted applicants will "
          "be invited to submit a full tender."),
    ("p", "The framework is divided into 3 lots: Lot 1 Offices; Lot 2 Libraries; Lot 3 Depots."),
    ("h2", "3. Value and duration"),
    ("p", "The estimated value of the framework over its full term is £6,400,000 excluding VAT. "
          "The framework will run for an initial period of four years."),
    ("h2", "4. Timetable"),
    ("table", [["Milestone", "Date"], ["Clarification questions close", "26 August 2026"],
               ["Deadline for tenders", "17:00 on 9 September 2026"],
               ["Intended award", "November 2026"]]),
    ("h2", "5. Commercial terms"),
    ("p", "The Council will pay undisputed invoices within 30 days."),
    ("p", "Delay damages of £200 per day apply where the mobilisation of a site is late."),
    ("p", "The selection and award criteria are set out in Annex B."),
]

FRAMEWORK_ANNEX = [
    ("title", "Annex B — Selection and award criteria"),
    ("h2", "B.1 Selection"),
    ("table", [["Selection criterion", "Minimum requirement"],
               ["Annual turnover", "£1,500,000 in each of the last two years"],
               ["Similar contracts", "3 in the last three years"],
               ["Public liability insurance", "£10,000,000"]]),
    ("h2", "B.2 Award"),
    ("table", [["Criterion", "Weighting"], ["Quality", "65%"], ["Price", "35%"]]),
    ("h2", "B.3 Guarantees and subcontracting"),
    ("p", "No tender guarantee is required. A performance guarantee of 5% of the annual call-off "
          "value may be requested before a call-off contract starts."),
    ("p", "Suppliers may subcontract up to 40% of the services under each call-off contract."),
]

FRAMEWORK = {
    "case": "en-cleaning-framework-annex", "lang": "en",
    "docs": [("tender.docx", None, FRAMEWORK_DOCX),
             ("annex-b.pdf", {"font": "Times"}, FRAMEWORK_ANNEX)],
    "gold": {
        "object": {"value": "the provision of cleaning services for the Council's offices, "
                            "libraries and depots"},
        "contracting_authority": "Ravensmoor County Council",
        "procedure": "restricted",
        "budget.estimated_value": gbp(6400000, vat="excluded"),
        "duration": {"value": 4, "unit": "years"},
        "lots.count": 3,
        "deadline.submission": {"date": "2026-09-09", "time": "17:00"},
        "economic_solvency.min_annual_turnover": gbp(1500000),
        "technical_solvency.min_similar_contracts": 3,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 35},
        "award_criteria.quality_weight": {"percent": 65},
        "subcontracting.max_percent": {"percent": 40},
        "penalties.delay_per_day": gbp(200),
        "payment.term_days": 30,
    },
}


# ---- 5. a short request for quotation: most conditions absent (PDF) -----------------------

RFQ_PDF = [
    ("title", "Request for Quotation RFQ-2026-031"),
    ("p", "Kestrel Valley Water Company"),
    ("p", "Dear Supplier,"),
    ("p", "Kestrel Valley Water Company invites quotations for the supply of laboratory "
          "consumables for its Fenwick treatment works, as listed in the attached schedule."),
    ("p", "Please submit your quotation by 10:00 on 6 March 2026 to the procurement mailbox "
          "named on the portal."),
    ("p", "Prices must be quoted excluding VAT and held for 90 days. Delivery must be made "
          "within 2 weeks of each order."),
    ("p", "Our standard payment terms are ____ days from the date of invoice."),
    ("p", "Yours faithfully,"),
    ("p", "Procurement Officer"),
]

RFQ = {
    "case": "en-lab-consumables-rfq", "lang": "en",
    "docs": [("rfq.pdf", {"font": "Times"}, RFQ_PDF)],
    "gold": {
        "object": {"value": "the supply of laboratory consumables for its Fenwick treatment works",
                   "also": ["the supply of laboratory consumables for its Fenwick treatment "
                            "works, as listed in the attached schedule"]},
        "contracting_authority": "Kestrel Valley Water Company",
        "deadline.submission": {"date": "2026-03-06", "time": "10:00"},
        "payment.term_days": BLANK,
    },
}


# ---- 6. a notice whose first revision left the closing date blank (DOCX, r2 fills it) -----

def catering(corrected: bool) -> list[Any]:
    closing = "30 September 2026 at 12:00" if corrected else "[insert date] at 12:00"
    blocks: list[Any] = [("h1", "Tender Notice — Catering Services for Hollinwood Schools")]
    if corrected:
        blocks.append(("p", "Corrigendum No. 1: this version states the closing date that the "
                            "first version of the notice left blank."))
    blocks += [
        ("p", "Contracting authority: Hollinwood Academy Trust"),
        ("h2", "Description"),
        ("p", "The Trust requires a catering contractor. The subject matter of the contract is "
              "the provision of school meals at the Trust's four primary academies."),
        ("p", "Procedure: the contract will be awarded under the open procedure."),
        ("p", "The contract will not be divided into lots."),
        ("h2", "Value and term"),
        ("p", "The estimated value of the contract is £1,900,000 excluding VAT over five years."),
        ("p", "Contract term: three years, with the option to extend for up to two further years."),
        ("h2", "Requirements"),
        ("p", "Bidders should have an annual turnover of at least £800,000."),
        ("h2", "Evaluation"),
        ("table", [["Criterion", "Weighting"],
                   ["Quality (menu, nutrition and service)", "60%"], ["Price", "40%"]]),
        ("h2", "Submission"),
        ("p", f"Closing date for tenders: {closing}."),
        ("p", "The Trust pays undisputed invoices within 30 days of receipt."),
    ]
    return blocks


CATERING = {
    "case": "en-catering-corrigendum", "lang": "en",
    "docs": [("notice.docx", None, catering(False))],
    "revisions": [("notice.docx", "r2/notice.docx", None, catering(True))],
    "gold": {
        "object": {"value": "the provision of school meals at the Trust's four primary academies"},
        "contracting_authority": "Hollinwood Academy Trust",
        "procedure": "open",
        "budget.estimated_value": gbp(1900000, vat="excluded"),
        "duration": {"value": 3, "unit": "years"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-09-30", "time": "12:00"},
        "economic_solvency.min_annual_turnover": gbp(800000),
        "award_criteria.price_weight": {"percent": 40},
        "award_criteria.quality_weight": {"percent": 60},
        "payment.term_days": 30,
    },
}


# ---- 7. a bid notice whose fill-in lines are drawn, not typed (PDF: spaces under a rule) --

# `<u>` over no-break spaces: the page shows a line to write on; the text layer holds spaces.
LINE = "<u>" + "&nbsp;" * 14 + "</u>"

ROOF_PDF = [
    ("title", "INVITATION FOR BIDS"),
    ("p", "Town of Ashcombe, Department of Public Works"),
    ("h2", "Project"),
    ("p", "Scope of work: replacement of the roof membrane and insulation at the Public Works "
          "Garage, 18 Mill Road, Ashcombe."),
    ("h2", "Bids"),
    ("p", f"Sealed bids must be delivered to the Town Clerk by 2:00 p.m. on {LINE}, 2026, when "
          "they will be publicly opened and read aloud."),
    ("p", f"The Town's budget for this project is ${LINE}."),
    ("p", "Each bid shall be accompanied by a bid bond of 5% of the bid amount."),
    ("p", f"The successful bidder shall furnish a performance bond in the amount of {LINE}% of "
          "the contract price."),
    ("h2", "Contract"),
    ("p", "All work shall be completed within 90 calendar days of the notice to proceed."),
    ("p", "Liquidated damages of $500.00 per calendar day will be assessed for each day the "
          "work remains incomplete."),
    ("p", "Payment will be made within 45 days after acceptance of the work."),
]

ROOF = {
    "case": "en-roof-bid-lines", "lang": "en",
    "docs": [("bid-notice.pdf", {"font": "Times", "header": "Town of Ashcombe"}, ROOF_PDF)],
    "gold": {
        "object": {"value": "replacement of the roof membrane and insulation at the Public Works "
                            "Garage, 18 Mill Road, Ashcombe"},
        "contracting_authority": "Town of Ashcombe, Department of Public Works",
        "budget.base_excl_vat": BLANK,
        "duration": {"value": 90, "unit": "days", "kind": "natural"},
        "deadline.submission": BLANK,
        "guarantee.provisional": {"percent": 5},
        "guarantee.definitive": BLANK,
        "penalties.delay_per_day": usd(500),
        "payment.term_days": 45,
    },
}


# ---- second batch: written after the rules were tuned on batch 1 ------------------------

# 8. a request for proposal (PDF) with a contract-details table and inline weights
SERVICEDESK_PDF = [
    ("title", "Request for Proposal — IT Service Desk and Field Support"),
    ("p", "Buyer: Westbridge Metropolitan Council"),
    ("h2", "1. Overview"),
    ("p", "Westbridge Metropolitan Council (the Buyer) is procuring an IT service desk and field "
          "support service for its 2,300 staff across 14 sites."),
    ("h2", "2. Contract details"),
    ("table", [["Item", "Detail"], ["Procedure", "Restricted procedure"],
               ["Estimated contract value", "£3.2 million excluding VAT"],
               ["Initial term", "3 years (plus an optional 2-year extension)"],
               ["Deadline for proposals", "12:00 noon, 25 November 2026"],
               ["Lots", "Not divided into lots"]]),
    ("h2", "3. Selection criteria"),
    ("p", "Suppliers must have a minimum annual turnover of £6,000,000 and must provide three "
          "examples of comparable contracts delivered in the last three years."),
    ("h2", "4. Evaluation"),
    ("p", "Proposals will be evaluated as follows: quality 70%, price 30%."),
    ("h2", "5. Commercial terms"),
    ("p", "Undisputed invoices will be paid within 30 days. Service credits of up to 10% of the "
          "monthly charge apply where service levels are missed."),
    ("p", "Bidders may subcontract no more than 25% of the contract value."),
]

SERVICEDESK = {
    "case": "en-servicedesk-rfp", "lang": "en", "batch": 2,
    "docs": [("rfp.pdf", {"font": "Helvetica", "header": "Westbridge Metropolitan Council"},
              SERVICEDESK_PDF)],
    "gold": {
        "object": {"value": "an IT service desk and field support service for its 2,300 staff "
                            "across 14 sites",
                   "also": ["IT Service Desk and Field Support"]},
        "contracting_authority": "Westbridge Metropolitan Council",
        "procedure": "restricted",
        "budget.estimated_value": gbp(3200000, vat="excluded"),
        "duration": {"value": 3, "unit": "years"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-11-25", "time": "12:00"},
        "economic_solvency.min_annual_turnover": gbp(6000000),
        "technical_solvency.min_similar_contracts": 3,
        "award_criteria.price_weight": {"percent": 30},
        "award_criteria.quality_weight": {"percent": 70},
        "subcontracting.max_percent": {"percent": 25},
        "payment.term_days": 30,
    },
}

# 9. an invitation to quote left as a template (PDF)
GROUNDS_PDF = [
    ("title", "INVITATION TO QUOTE — Grounds Maintenance"),
    ("p", "Contracting authority: [insert name of school]"),
    ("p", "Description of requirement: grounds maintenance of the school playing fields and "
          "gardens, including grass cutting, hedge trimming and leaf clearance."),
    ("p", "Contract period: [X] years from [insert start date]."),
    ("p", "Budget: £[•] per annum (excluding VAT)."),
    ("p", "Quotations must be returned by 12:00 on [DD/MM/YYYY]."),
    ("p", "Evaluation: price ___% and quality ___%."),
    ("p", "Payment terms: invoices are paid within 30 days."),
    ("p", "Insurance: public liability cover of at least £5,000,000."),
    ("p", "Minimum turnover: not applicable."),
]

GROUNDS = {
    "case": "en-grounds-itq-template", "lang": "en", "batch": 2,
    "docs": [("itq.pdf", {"font": "Times"}, GROUNDS_PDF)],
    "gold": {
        "object": {"value": "grounds maintenance of the school playing fields and gardens, "
                            "including grass cutting, hedge trimming and leaf clearance"},
        "contracting_authority": BLANK,
        "budget.base_excl_vat": BLANK,
        "duration": BLANK,
        "deadline.submission": BLANK,
        "award_criteria.price_weight": BLANK,
        "award_criteria.quality_weight": BLANK,
        "payment.term_days": 30,
    },
}

# 10. a works notice (HTML): a definition list, conditions in prose, damages per week
BRIDGE_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Contract notice — Millbrook Road Bridge</title></head>
<body>
<h1>Contract Notice: Strengthening of Millbrook Road Bridge</h1>
<dl>
<dt>Contracting body</dt><dd>Harrowfield County Highways Authority</dd>
<dt>Type of procedure</dt><dd>Open</dd>
<dt>Estimated value (excl. VAT)</dt><dd>GBP 1,750,000</dd>
<dt>Duration of the works</dt><dd>40 weeks</dd>
<dt>Time limit for receipt of tenders</dt><dd>9 October 2026 at 14:00</dd>
</dl>
<p>Description: strengthening of the Millbrook Road bridge deck and replacement of its parapets, with traffic management.</p>
<h2>Conditions</h2>
<p>A performance bond equal to 10% of the contract price will be required. No tender bond is required.</p>
<p>Tenderers must hold an average annual turnover of at least £3,500,000.</p>
<p>Liquidated and ascertained damages will be applied at £2,000 per week of delay.</p>
<p>Award will be based on 60% quality and 40% price.</p>
<p>Payment: the Authority will pay within 30 days of a valid invoice.</p>
</body></html>
"""

BRIDGE = {
    "case": "en-bridge-notice-dl", "lang": "en", "batch": 2,
    "docs": [("notice.html", None, BRIDGE_HTML)],
    "gold": {
        "object": {"value": "strengthening of the Millbrook Road bridge deck and replacement of "
                            "its parapets, with traffic management",
                   "also": ["Strengthening of Millbrook Road Bridge"]},
        "contracting_authority": "Harrowfield County Highways Authority",
        "procedure": "open",
        "budget.estimated_value": gbp(1750000, vat="excluded"),
        "duration": {"value": 40, "unit": "weeks"},
        "deadline.submission": {"date": "2026-10-09", "time": "14:00"},
        "economic_solvency.min_annual_turnover": gbp(3500000),
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 10},
        "award_criteria.price_weight": {"percent": 40},
        "award_criteria.quality_weight": {"percent": 60},
        "payment.term_days": 30,
    },
}

CASES = [PRINT, QUAY, RFP, FRAMEWORK, RFQ, CATERING, ROOF, SERVICEDESK, GROUNDS, BRIDGE]
