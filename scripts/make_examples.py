"""Build the example corpus under examples/ (deterministic; the outputs are committed).

examples/tender/pliego.pdf          a Spanish public-tender PCAP: numbered clauses, a
                                    solvency table, award criteria, a clause that crosses
                                    a page break under a running header and footer
examples/tender/anexo-tecnico.docx  the technical annex (DOCX, headings, a table)
examples/tender/anuncio.html        the contract notice (HTML)
examples/tender/corrigendum/pliego.pdf  the corrected PCAP: ingested under the source id
                                    tender/pliego.pdf it becomes revision r2 (one value
                                    changes); `.pinciteignore` keeps it out of the walk

Usage: python scripts/make_examples.py examples
"""

from __future__ import annotations

import sys
from pathlib import Path

TITLE = "PLIEGO DE CLÁUSULAS ADMINISTRATIVAS PARTICULARES"
HEADER = "Ayuntamiento de Villanueva del Río — Expediente 2026/0147"

CLAUSES: list[tuple[str, list[str]]] = [
    ("1. OBJETO DEL CONTRATO", [
        "1.1 El objeto del contrato es el servicio de mantenimiento integral de las "
        "instalaciones de alumbrado público del término municipal de Villanueva del Río, "
        "incluyendo la conservación preventiva, correctiva y la renovación de luminarias.",
        "1.2 El contrato no se divide en lotes, dado que la coordinación de las prestaciones "
        "exige una ejecución unitaria por un único operador.",
    ]),
    ("2. PODER ADJUDICADOR Y PROCEDIMIENTO", [
        "2.1 El órgano de contratación es la Junta de Gobierno Local del Ayuntamiento de "
        "Villanueva del Río.",
        "2.2 El contrato se adjudicará por procedimiento abierto, conforme a los artículos 156 "
        "a 158 de la Ley 9/2017, de 8 de noviembre, de Contratos del Sector Público.",
    ]),
    ("3. PRESUPUESTO BASE DE LICITACIÓN Y VALOR ESTIMADO", [
        "3.1 El presupuesto base de licitación asciende a 1.200.000,00 euros, IVA excluido, "
        "para los dos años de duración inicial del contrato.",
        "3.2 El valor estimado del contrato, incluidas las posibles prórrogas, es de "
        "2.400.000,00 euros, IVA excluido.",
    ]),
    ("4. DURACIÓN DEL CONTRATO", [
        "4.1 El contrato tendrá una duración de veinticuatro (24) meses a contar desde la "
        "formalización, prorrogable por periodos anuales hasta un máximo de dos prórrogas.",
    ]),
    ("5. PRESENTACIÓN DE OFERTAS", [
        "5.1 El plazo de presentación de ofertas finalizará el 15 de enero de 2027 a las 14:00 "
        "horas. Las ofertas se presentarán exclusivamente por medios electrónicos a través de "
        "la Plataforma de Contratación del Sector Público.",
        "5.2 No se admitirán variantes ni mejoras distintas de las previstas en la cláusula 9.",
    ]),
    ("6. GARANTÍAS", [
        "6.1 No se exige garantía provisional.",
        "6.2 El adjudicatario deberá constituir una garantía definitiva del 5 por ciento del "
        "precio final ofertado, IVA excluido, en cualquiera de las formas previstas en el "
        "artículo 108 de la Ley 9/2017. La garantía responderá de la correcta ejecución de "
        "las prestaciones, de las penalidades impuestas al contratista y de los daños y "
        "perjuicios ocasionados a la Administración con motivo de la ejecución del contrato "
        "o por su incumplimiento, y no será devuelta hasta que se haya producido el "
        "vencimiento del plazo de garantía y cumplido satisfactoriamente el contrato, o "
        "hasta que se declare la resolución de este sin culpa del contratista. La devolución "
        "se acordará por el órgano de contratación en el plazo de dos meses desde la "
        "finalización del plazo de garantía, previa comprobación de que no existen "
        "responsabilidades pendientes que deban ejercitarse sobre la garantía.",
    ]),
    ("7. SOLVENCIA", [
        "7.1 Solvencia económica y financiera. Los licitadores acreditarán su solvencia "
        "económica mediante los siguientes criterios:",
        "a) Volumen anual de negocios, referido al mejor ejercicio dentro de los tres últimos "
        "disponibles, igual o superior a 450.000 euros.",
        "b) Seguro de responsabilidad civil por riesgos profesionales por importe no inferior "
        "a 600.000 euros.",
        "7.2 Solvencia técnica o profesional. Se acreditará mediante la relación de los "
        "principales servicios realizados en los tres últimos años, que deberá incluir al "
        "menos tres contratos de naturaleza similar al objeto del contrato.",
        "7.3 Clasificación. Alternativamente, los licitadores podrán acreditar su solvencia "
        "mediante la clasificación en el grupo P, subgrupo 1, categoría 3.",
    ]),
]

SOLVENCY_TABLE = [
    ["Requisito", "Umbral mínimo", "Medio de acreditación"],
    ["Volumen anual de negocios", "450.000 €", "Cuentas anuales depositadas"],
    ["Seguro de responsabilidad civil", "600.000 €", "Certificado de la aseguradora"],
    ["Contratos similares", "3", "Certificados de buena ejecución"],
]

LATER: list[tuple[str, list[str]]] = [
    ("8. CRITERIOS DE ADJUDICACIÓN", [
        "8.1 La adjudicación se realizará atendiendo a una pluralidad de criterios, con la "
        "ponderación que figura en la tabla siguiente:",
    ]),
    ("9. SUBCONTRATACIÓN", [
        "9.1 El contratista podrá subcontratar la ejecución parcial de la prestación hasta un "
        "máximo del 40 por ciento del importe de adjudicación.",
    ]),
    ("10. PENALIDADES", [
        "10.1 Por cada día natural de demora en la reparación de averías se impondrá una "
        "penalidad de 300 euros por día.",
    ]),
    ("11. RÉGIMEN DE PAGOS", [
        "11.1 La Administración abonará el precio dentro de los treinta (30) días siguientes a "
        "la fecha de aprobación de las certificaciones mensuales.",
    ]),
]

AWARD_TABLE = [
    ["Criterio", "Ponderación"],
    ["Oferta económica (precio)", "60 puntos"],
    ["Calidad técnica de la propuesta", "40 puntos"],
]

# The corrigendum (a new revision of pliego.pdf under the same source id): the turnover
# threshold falls from 450.000 to 400.000 euros, in clause 7.1.a and in the table.
CORRIGENDUM_NOTE = ("Corrección de errores: se modifica el importe mínimo del volumen anual de "
                    "negocios exigido en la cláusula 7.1.a y en la tabla de solvencia.")


def build_pdf(path: Path, *, corrected: bool = False) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    body.fontSize = 10.5
    body.leading = 14
    h1 = styles["Heading1"]
    h2 = styles["Heading2"]

    def on_page(canvas, doc) -> None:  # type: ignore[no-untyped-def]
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, A4[1] - 40, HEADER)
        canvas.drawCentredString(A4[0] / 2, 30, f"Página {doc.page}")
        canvas.restoreState()

    def table(rows: list[list[str]]) -> Table:
        t = Table(rows, hAlign="LEFT")
        t.setStyle(TableStyle([
            ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
            ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
            ("FONTSIZE", (0, 0), (-1, -1), 9),
        ]))
        return t

    def fix(text: str) -> str:
        return text.replace("450.000", "400.000") if corrected else text

    story = [Paragraph(TITLE, h1), Spacer(1, 8)]
    if corrected:
        story.append(Paragraph(CORRIGENDUM_NOTE, body))
    for head, paras in CLAUSES:
        story.append(Paragraph(head, h2))
        for p in paras:
            story.append(Paragraph(fix(p), body))
        if head.startswith("7."):
            story.append(Spacer(1, 6))
            story.append(table([[fix(c) for c in row] for row in SOLVENCY_TABLE]))
    for head, paras in LATER:
        story.append(Paragraph(head, h2))
        for p in paras:
            story.append(Paragraph(p, body))
        if head.startswith("8."):
            story.append(Spacer(1, 6))
            story.append(table(AWARD_TABLE))
    doc = SimpleDocTemplate(str(path), pagesize=A4, title=TITLE, author="pincite examples",
                            topMargin=60, bottomMargin=60, invariant=1)
    doc.build(story, onFirstPage=on_page, onLaterPages=on_page)


def build_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.core_properties.author = "pincite examples"
    d.add_heading("ANEXO TÉCNICO — PRESCRIPCIONES DEL SERVICIO", level=1)
    d.add_heading("1. Alcance", level=2)
    d.add_paragraph("1.1 El servicio comprende el mantenimiento de 4.350 puntos de luz y 112 "
                    "centros de mando distribuidos en el término municipal.")
    d.add_heading("2. Medios personales", level=2)
    d.add_paragraph("2.1 El adjudicatario acreditará experiencia en al menos tres contratos de "
                    "naturaleza similar ejecutados en los últimos tres años.")
    d.add_paragraph("2.2 El equipo mínimo estará formado por los siguientes perfiles:")
    t = d.add_table(rows=3, cols=2)
    for r, row in enumerate([["Perfil", "Número"], ["Oficial electricista", "4"],
                             ["Jefe de servicio", "1"]]):
        for c, val in enumerate(row):
            t.cell(r, c).text = val
    d.add_heading("3. Tiempos de respuesta", level=2)
    d.add_paragraph("3.1 Las averías que afecten a más de diez puntos de luz se atenderán en un "
                    "plazo máximo de cuatro horas.")
    d.save(str(path))


HTML = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Anuncio de licitación 2026/0147</title>
<style>body{font-family:sans-serif}</style></head>
<body>
<h1>Anuncio de licitación</h1>
<p>Ayuntamiento de Villanueva del Río. Expediente 2026/0147.</p>
<h2>Datos del contrato</h2>
<table>
<tr><th>Tipo de contrato</th><td>Servicios</td></tr>
<tr><th>Procedimiento</th><td>Procedimiento abierto</td></tr>
<tr><th>Presupuesto base (IVA excluido)</th><td>1.200.000,00 €</td></tr>
<tr><th>Fin del plazo de presentación</th><td>15/01/2027 14:00</td></tr>
</table>
<h2>Información adicional</h2>
<p>Los pliegos están disponibles en la Plataforma de Contratación del Sector Público.</p>
<p style="display:none">Texto oculto de prueba: este párrafo no se muestra.</p>
</body></html>
"""


def main(out: str) -> None:
    root = Path(out) / "tender"
    root.mkdir(parents=True, exist_ok=True)
    build_pdf(root / "pliego.pdf")
    (root / "corrigendum").mkdir(exist_ok=True)
    build_pdf(root / "corrigendum" / "pliego.pdf", corrected=True)
    build_docx(root / "anexo-tecnico.docx")
    (root / "anuncio.html").write_text(HTML, encoding="utf-8")
    print(f"wrote {root}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples")
