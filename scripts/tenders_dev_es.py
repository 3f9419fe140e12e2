"""The Spanish cases of the tender dev corpus (text written for pincite; no real tender).

Each case: documents as blocks (PDF, DOCX) or HTML text, optional revisions (a corrected
document ingested under the same source id), and its gold: field → value, BLANK where the
document leaves a template blank, absent when the documents do not state the field.
Blocks: ("title"|"h1"|"h2"|"p"|"small", text), ("table", rows), ("break",).
"""

from __future__ import annotations

from typing import Any

BLANK = {"blank": True}
EUR = "EUR"


def eur(amount: int | float, **extra: Any) -> dict[str, Any]:
    return {"amount": amount, "currency": EUR, **extra}


# ---- 1. works contract: ordinal clauses in prose (PDF) + a <dl> profile page (HTML) ------

OBRAS_PLIEGO = [
    ("title", "PLIEGO DE CONDICIONES ADMINISTRATIVAS DEL CONTRATO DE OBRAS DE PAVIMENTACIÓN "
              "DE LAS CALLES MAYOR Y REAL"),
    ("small", "Ayuntamiento de Santa Olalla de la Vega · Expediente OBR-12/2026"),
    ("h2", "CLÁUSULA PRIMERA.- OBJETO"),
    ("p", "Constituye el objeto del contrato la ejecución de las obras de pavimentación y "
          "renovación de redes de abastecimiento en las calles Mayor y Real, conforme al "
          "proyecto técnico aprobado por el Pleno."),
    ("p", "No procede la división en lotes, al tratarse de una obra completa cuya ejecución "
          "separada dificultaría la coordinación de los distintos trabajos."),
    ("h2", "CLÁUSULA SEGUNDA.- ÓRGANO DE CONTRATACIÓN"),
    ("p", "El órgano de contratación competente es la Alcaldía-Presidencia del Ayuntamiento de "
          "Santa Olalla de la Vega, en virtud de la disposición adicional segunda de la Ley "
          "9/2017, de Contratos del Sector Público."),
    ("h2", "CLÁUSULA TERCERA.- PROCEDIMIENTO"),
    ("p", "La adjudicación se llevará a cabo mediante procedimiento abierto simplificado, con "
          "tramitación ordinaria del expediente."),
    ("h2", "CLÁUSULA CUARTA.- PRESUPUESTO Y VALOR ESTIMADO"),
    ("p", "El presupuesto base de licitación se fija en 385.200,00 euros, al que corresponde "
          "un IVA del 21 % por importe de 80.892,00 euros, lo que supone un total de "
          "466.092,00 euros."),
    ("p", "El valor estimado del contrato asciende a 385.200,00 euros, al no preverse "
          "prórrogas ni modificaciones."),
    ("h2", "CLÁUSULA QUINTA.- PLAZO DE EJECUCIÓN"),
    ("p", "Las obras deberán ejecutarse en un plazo de SEIS (6) MESES, contado desde el día "
          "siguiente a la firma del acta de comprobación del replanteo."),
    ("h2", "CLÁUSULA SEXTA.- CLASIFICACIÓN Y SOLVENCIA"),
    ("p", "Para participar en la licitación será requisito estar clasificado en el Grupo G, "
          "Subgrupo 6, Categoría 3."),
    ("p", "Los empresarios no españoles de Estados miembros de la Unión Europea acreditarán su "
          "solvencia económica mediante un volumen anual de negocios, en el año de mayor "
          "volumen de los tres últimos concluidos, de al menos 577.800,00 euros."),
    ("p", "La solvencia técnica se acreditará mediante la relación de obras ejecutadas en los "
          "últimos cinco años, con un mínimo de dos obras de características análogas a las "
          "del objeto del contrato."),
    ("h2", "CLÁUSULA SÉPTIMA.- GARANTÍAS"),
    ("p", "De conformidad con el artículo 159.4 de la LCSP, no será necesaria la constitución "
          "de garantía provisional."),
    ("p", "El licitador que presente la mejor oferta deberá constituir una garantía definitiva "
          "por importe del 5 por 100 del precio final ofertado, excluido el Impuesto sobre el "
          "Valor Añadido."),
    ("h2", "CLÁUSULA OCTAVA.- CRITERIOS DE ADJUDICACIÓN"),
    ("p", "Las ofertas se valorarán sobre un total de 100 puntos con arreglo a los siguientes "
          "criterios:"),
    ("p", "a) Oferta económica: hasta 70 puntos, asignados de forma proporcional a la baja "
          "ofertada."),
    ("p", "b) Criterios de calidad: hasta 30 puntos, de los que 20 puntos corresponden a la "
          "ampliación del plazo de garantía y 10 puntos al plan de gestión de residuos."),
    ("h2", "CLÁUSULA NOVENA.- SUBCONTRATACIÓN"),
    ("p", "Se admite la subcontratación con los requisitos y límites del artículo 215 de la "
          "LCSP."),
    ("h2", "CLÁUSULA DÉCIMA.- PENALIDADES"),
    ("p", "En caso de incumplimiento del plazo total de ejecución por causas imputables al "
          "contratista, se impondrá una penalidad diaria de 250,00 euros."),
    ("h2", "CLÁUSULA UNDÉCIMA.- PAGO DEL PRECIO"),
    ("p", "El Ayuntamiento abonará las certificaciones mensuales de obra en el plazo de treinta "
          "días desde la fecha de su aprobación."),
]

OBRAS_ANUNCIO = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Perfil del contratante - OBR-12/2026</title></head>
<body>
<header><p>Ayuntamiento de Santa Olalla de la Vega · Perfil del contratante</p></header>
<main>
<h1>Licitación OBR-12/2026: pavimentación de las calles Mayor y Real</h1>
<dl>
<dt>Órgano de contratación</dt><dd>Alcaldía-Presidencia del Ayuntamiento de Santa Olalla de la Vega</dd>
<dt>Tipo de contrato</dt><dd>Obras</dd>
<dt>Tipo de procedimiento</dt><dd>Abierto simplificado</dd>
<dt>Presupuesto base de licitación sin impuestos</dt><dd>385.200,00 EUR</dd>
<dt>Plazo de ejecución</dt><dd>6 meses</dd>
<dt>Plazo de presentación de proposiciones</dt><dd>Hasta el 16 de marzo de 2026 a las 14:00 horas</dd>
<dt>Lugar de presentación</dt><dd>Plataforma de licitación electrónica</dd>
</dl>
<p>La documentación completa puede consultarse en este perfil.</p>
</main></body></html>
"""

OBRAS = {
    "case": "es-obras-pavimentacion", "lang": "es",
    "docs": [("pliego.pdf", {"font": "Times", "header": "Expte. OBR-12/2026"}, OBRAS_PLIEGO),
             ("anuncio.html", None, OBRAS_ANUNCIO)],
    "gold": {
        "object": {"value": "la ejecución de las obras de pavimentación y renovación de redes de "
                            "abastecimiento en las calles Mayor y Real, conforme al proyecto "
                            "técnico aprobado por el Pleno",
                   "also": ["la ejecución de las obras de pavimentación y renovación de redes de "
                            "abastecimiento en las calles Mayor y Real"]},
        "contracting_authority": "la Alcaldía-Presidencia del Ayuntamiento de Santa Olalla de la Vega",
        "procedure": "simplified_open",
        "budget.base_excl_vat": eur(385200),
        "budget.estimated_value": eur(385200),
        "duration": {"value": 6, "unit": "months"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-03-16", "time": "14:00"},
        "economic_solvency.min_annual_turnover": eur(577800, basis="best_of_last_3_years"),
        "technical_solvency.min_similar_contracts": 2,
        "classification": "el Grupo G, Subgrupo 6, Categoría 3",
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 70},
        "award_criteria.quality_weight": {"percent": 30},
        "penalties.delay_per_day": eur(250),
        "payment.term_days": 30,
    },
}


# ---- 2. supply contract: a "cuadro resumen" table, and a corrigendum (revision r2) --------

def vehiculos(corrected: bool) -> list[Any]:
    budget = "720.000,00 €" if corrected else "690.000,00 €"
    deadline = "11 de mayo de 2026, 15:00 horas" if corrected else "27 de abril de 2026, 15:00 horas"
    turnover = "1.080.000,00" if corrected else "1.035.000,00"
    blocks: list[Any] = [
        ("title", "PLIEGO DE CLÁUSULAS ADMINISTRATIVAS PARTICULARES — SUMINISTRO"),
        ("small", "Consorcio Provincial de Bomberos de Valdemora · Expediente SUM-03/2026"),
    ]
    if corrected:
        blocks.append(("p", "Corrección de errores publicada en el boletín provincial: se "
                            "modifican los apartados D, E y J del cuadro resumen y el importe de "
                            "la solvencia económica de la cláusula 4."))
    blocks += [
        ("h1", "CUADRO RESUMEN DE CARACTERÍSTICAS DEL CONTRATO"),
        ("table", [
            ["Apartado", "Contenido"],
            ["A. Objeto del contrato", "Suministro de dos vehículos autobomba urbana pesada con "
                                       "destino al parque de Valdemora Norte"],
            ["B. Órgano de contratación", "Presidencia del Consorcio Provincial de Bomberos de Valdemora"],
            ["C. Procedimiento de adjudicación", "Abierto, sujeto a regulación armonizada"],
            ["D. Presupuesto base de licitación (IVA excluido)", budget],
            ["E. Valor estimado", budget],
            ["F. Plazo de entrega", "10 meses desde la formalización"],
            ["G. División en lotes", "No"],
            ["H. Garantía provisional", "No se exige"],
            ["I. Garantía definitiva", "5 % del importe de adjudicación, IVA excluido"],
            ["J. Fecha límite de presentación de ofertas", deadline],
            ["K. Subcontratación", "Hasta el 50 % del importe de adjudicación"],
            ["L. Plazo de pago", "30 días desde la conformidad de la factura"],
        ]),
        ("h2", "1. Régimen jurídico"),
        ("p", "El contrato tiene carácter administrativo y se rige por la Ley 9/2017, de Contratos "
              "del Sector Público, y por el presente pliego."),
        ("h2", "2. Criterios de adjudicación"),
        ("p", "La oferta económicamente más ventajosa se determinará conforme a la siguiente "
              "puntuación:"),
        ("table", [
            ["Criterio", "Puntuación máxima"],
            ["Precio", "55"],
            ["Calidad técnica (características del vehículo y plazo de entrega)", "45"],
        ]),
        ("h2", "3. Penalidades"),
        ("p", "Por demora en la entrega se impondrá una penalidad de 400 euros por cada día "
              "natural de retraso, sin perjuicio de la facultad de resolución."),
        ("h2", "4. Solvencia"),
        ("p", "Solvencia económica: volumen anual de negocios en el ámbito del contrato, referido "
              "al año de mayor volumen de negocio de los tres últimos concluidos, por importe igual "
              f"o superior a {turnover} euros."),
        ("p", "Solvencia técnica: haber realizado en los tres últimos años al menos dos "
              "suministros de igual o similar naturaleza que los del objeto del contrato."),
    ]
    return blocks


VEHICULOS = {
    "case": "es-vehiculos-cuadro", "lang": "es",
    "docs": [("pliego.pdf", {"font": "Helvetica"}, vehiculos(False))],
    "revisions": [("pliego.pdf", "r2/pliego.pdf", {"font": "Helvetica"}, vehiculos(True))],
    "gold": {
        "object": {"value": "Suministro de dos vehículos autobomba urbana pesada con destino al "
                            "parque de Valdemora Norte"},
        "contracting_authority": "Presidencia del Consorcio Provincial de Bomberos de Valdemora",
        "procedure": "open",
        "budget.base_excl_vat": eur(720000, vat="excluded"),
        "budget.estimated_value": eur(720000),
        "duration": {"value": 10, "unit": "months"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-05-11", "time": "15:00"},
        "economic_solvency.min_annual_turnover": eur(1080000, basis="best_of_last_3_years"),
        "technical_solvency.min_similar_contracts": 2,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 55},
        "award_criteria.quality_weight": {"percent": 45},
        "subcontracting.max_percent": {"percent": 50},
        "penalties.delay_per_day": eur(400),
        "payment.term_days": 30,
    },
}


# ---- 3. a model pliego left unfilled: blanks in DOCX -------------------------------------

LIMPIEZA_DOCX = [
    ("h1", "MODELO DE PLIEGO DE CLÁUSULAS ADMINISTRATIVAS — SERVICIO DE LIMPIEZA"),
    ("p", "Mancomunidad de Municipios del Alto Jarama"),
    ("h2", "1. Objeto y necesidad"),
    ("p", "El presente contrato tiene por objeto la prestación del servicio de limpieza de los "
          "edificios municipales adscritos a la Mancomunidad."),
    ("p", "El contrato no se divide en lotes."),
    ("h2", "2. Órgano de contratación y procedimiento"),
    ("p", "Órgano de contratación: la Junta de la Mancomunidad."),
    ("p", "El contrato se adjudicará por procedimiento abierto."),
    ("h2", "3. Importes"),
    ("p", "Presupuesto base de licitación: [●] euros, IVA excluido."),
    ("p", "Valor estimado del contrato: [importe] euros."),
    ("h2", "4. Duración"),
    ("p", "Duración: dos (2) años, prorrogable por un año más."),
    ("h2", "5. Presentación de ofertas"),
    ("p", "Fecha límite de presentación de ofertas: __/__/20__, a las __:__ horas."),
    ("h2", "6. Solvencia"),
    ("p", "Solvencia económica: volumen anual de negocios mínimo de …… euros en el mejor "
          "ejercicio de los tres últimos."),
    ("p", "Solvencia técnica: al menos [●] contratos similares ejecutados en los últimos tres años."),
    ("h2", "7. Garantías"),
    ("p", "Garantía provisional: no se exige."),
    ("p", "Garantía definitiva: X% del precio de adjudicación, IVA excluido."),
    ("h2", "8. Criterios de adjudicación"),
    ("table", [["Criterio", "Puntuación"], ["Precio", "[●] puntos"],
               ["Calidad del servicio", "[●] puntos"]]),
    ("h2", "9. Ejecución"),
    ("p", "No se permite subcontratar más del ___ % del importe de adjudicación."),
    ("p", "Penalidad por demora: [importe] euros por día."),
    ("p", "Forma de pago: mensual, dentro de los treinta días siguientes a la presentación de la "
          "factura."),
]

LIMPIEZA = {
    "case": "es-limpieza-plantilla", "lang": "es",
    "docs": [("pliego-modelo.docx", None, LIMPIEZA_DOCX)],
    "gold": {
        "object": {"value": "la prestación del servicio de limpieza de los edificios municipales "
                            "adscritos a la Mancomunidad"},
        "contracting_authority": "la Junta de la Mancomunidad",
        "procedure": "open",
        "budget.base_excl_vat": BLANK,
        "budget.estimated_value": BLANK,
        "duration": {"value": 2, "unit": "years"},
        "lots.count": 1,
        "deadline.submission": BLANK,
        "economic_solvency.min_annual_turnover": BLANK,
        "technical_solvency.min_similar_contracts": BLANK,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": BLANK,
        "award_criteria.price_weight": BLANK,
        "award_criteria.quality_weight": BLANK,
        "subcontracting.max_percent": BLANK,
        "penalties.delay_per_day": BLANK,
        "payment.term_days": 30,
    },
}


# ---- 4. conditions split over a notice (HTML), a pliego (PDF) and an annex (DOCX) ---------

MANT_ANUNCIO = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Anuncio de licitación UM-SER-44/2026</title></head>
<body>
<h1>Anuncio de licitación</h1>
<table class="datos">
<tr><td><strong>Poder adjudicador</strong></td><td>Rectorado de la Universidad de Montecarmelo</td></tr>
<tr><td><strong>Objeto</strong></td><td>Mantenimiento de las instalaciones de climatización de los edificios del campus de Montecarmelo</td></tr>
<tr><td><strong>Procedimiento</strong></td><td>Procedimiento restringido</td></tr>
<tr><td><strong>Valor estimado (IVA excluido)</strong></td><td>1.120.000,00 euros</td></tr>
<tr><td><strong>Presentación de ofertas</strong></td><td>Hasta las 23:59 horas del 5 de junio de 2026</td></tr>
</table>
<p>Los pliegos y el anexo técnico se publican junto a este anuncio.</p>
</body></html>
"""

MANT_PLIEGO = [
    ("title", "Pliego de cláusulas administrativas — Mantenimiento de climatización"),
    ("h2", "Artículo 1. Objeto"),
    ("p", "Es objeto del presente pliego regular la contratación del mantenimiento preventivo y "
          "correctivo de las instalaciones de climatización de los edificios del campus."),
    ("h2", "Artículo 2. Lotes"),
    ("p", "El contrato se divide en dos lotes: el lote 1 comprende los edificios docentes y el "
          "lote 2 los edificios de investigación."),
    ("h2", "Artículo 3. Presupuesto"),
    ("p", "El presupuesto máximo de licitación, excluido el IVA, es de 560.000,00 euros para el "
          "plazo inicial de dos años."),
    ("h2", "Artículo 4. Vigencia"),
    ("p", "El contrato tendrá una vigencia de dos años desde su formalización, con posibilidad "
          "de prórroga por otros dos años."),
    ("h2", "Artículo 5. Garantías"),
    ("p", "Los licitadores seleccionados no deberán constituir garantía provisional. La "
          "garantía definitiva será equivalente al 5 % del precio de adjudicación, IVA excluido."),
    ("h2", "Artículo 6. Solvencia económica y financiera"),
    ("p", "Se acreditará mediante el volumen anual de negocios del licitador que, referido al "
          "mejor ejercicio dentro de los tres últimos disponibles, deberá ser al menos de "
          "840.000 euros."),
    ("h2", "Artículo 7. Criterios de adjudicación"),
    ("p", "La valoración de las ofertas se realizará sobre 100 puntos: precio, hasta 51 puntos; "
          "calidad técnica del plan de mantenimiento, hasta 49 puntos."),
    ("h2", "Artículo 8. Penalidades"),
    ("p", "El retraso en la atención de avisos urgentes dará lugar a una penalidad de 150 euros "
          "por cada día de retraso."),
    ("h2", "Artículo 9. Facturación y pago"),
    ("p", "La Universidad pagará las facturas en un plazo máximo de 30 días naturales desde su "
          "registro."),
]

MANT_ANEXO = [
    ("h1", "ANEXO II — SOLVENCIA TÉCNICA Y CONDICIONES DE EJECUCIÓN"),
    ("h2", "A. Solvencia técnica"),
    ("p", "Los licitadores deberán acreditar la ejecución de un mínimo de cuatro contratos de "
          "mantenimiento de instalaciones de climatización de naturaleza similar en los últimos "
          "tres años."),
    ("p", "Clasificación empresarial (potestativa): Grupo O, Subgrupo 2, Categoría B."),
    ("h2", "B. Condiciones de ejecución"),
    ("p", "El adjudicatario podrá subcontratar hasta un 25 % del importe del contrato, previa "
          "comunicación al órgano de contratación."),
    ("p", "El personal técnico dispondrá del carné profesional de instalaciones térmicas."),
]

MANTENIMIENTO = {
    "case": "es-climatizacion-anexo", "lang": "es",
    "docs": [("anuncio.html", None, MANT_ANUNCIO),
             ("pliego.pdf", {"font": "Helvetica", "header": "Universidad de Montecarmelo"}, MANT_PLIEGO),
             ("anexo-ii.docx", None, MANT_ANEXO)],
    "gold": {
        "object": {"value": "Mantenimiento de las instalaciones de climatización de los edificios "
                            "del campus de Montecarmelo",
                   "also": ["el mantenimiento preventivo y correctivo de las instalaciones de "
                            "climatización de los edificios del campus"]},
        "contracting_authority": "Rectorado de la Universidad de Montecarmelo",
        "procedure": "restricted",
        "budget.base_excl_vat": eur(560000, vat="excluded"),
        "budget.estimated_value": eur(1120000, vat="excluded"),
        "duration": {"value": 2, "unit": "years"},
        "lots.count": 2,
        "deadline.submission": {"date": "2026-06-05", "time": "23:59"},
        "economic_solvency.min_annual_turnover": eur(840000, basis="best_of_last_3_years"),
        "technical_solvency.min_similar_contracts": 4,
        "classification": "Grupo O, Subgrupo 2, Categoría B",
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 51},
        "award_criteria.quality_weight": {"percent": 49},
        "subcontracting.max_percent": {"percent": 25},
        "penalties.delay_per_day": eur(150),
        "payment.term_days": 30,
    },
}


# ---- 5. a contractor-profile page only (HTML, label/value spans) ---------------------------

PERFIL_HTML = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Expediente 2026/SAD-07</title></head>
<body>
<h1>Servicio de ayuda a domicilio</h1>
<div class="ficha">
<div class="campo"><span class="etiqueta">Objeto del contrato:</span> <span class="valor">Servicio de ayuda a domicilio para personas en situación de dependencia en el municipio de Robledal</span></div>
<div class="campo"><span class="etiqueta">Órgano de contratación:</span> <span class="valor">Pleno del Ayuntamiento de Robledal</span></div>
<div class="campo"><span class="etiqueta">Tipo de procedimiento:</span> <span class="valor">Procedimiento abierto</span></div>
<div class="campo"><span class="etiqueta">Presupuesto base de licitación (sin IVA):</span> <span class="valor">1.480.000,00 €</span></div>
<div class="campo"><span class="etiqueta">Valor estimado:</span> <span class="valor">2.960.000,00 €</span></div>
<div class="campo"><span class="etiqueta">Duración del contrato:</span> <span class="valor">24 meses</span></div>
<div class="campo"><span class="etiqueta">Lotes:</span> <span class="valor">El contrato no se divide en lotes</span></div>
<div class="campo"><span class="etiqueta">Plazo de presentación:</span> <span class="valor">Hasta el 20/04/2026 a las 23:59 horas</span></div>
<div class="campo"><span class="etiqueta">Garantía definitiva:</span> <span class="valor">5 % del importe de adjudicación</span></div>
<div class="campo"><span class="etiqueta">Solvencia económica:</span> <span class="valor">Volumen anual de negocios igual o superior a 2.220.000,00 €</span></div>
</div>
<h2>Criterios de adjudicación</h2>
<ul>
<li>Precio: 60 puntos.</li>
<li>Calidad del proyecto técnico de gestión del servicio: 40 puntos.</li>
</ul>
</body></html>
"""

PERFIL = {
    "case": "es-ayuda-domicilio-perfil", "lang": "es",
    "docs": [("perfil.html", None, PERFIL_HTML)],
    "gold": {
        "object": {"value": "Servicio de ayuda a domicilio para personas en situación de "
                            "dependencia en el municipio de Robledal"},
        "contracting_authority": "Pleno del Ayuntamiento de Robledal",
        "procedure": "open",
        "budget.base_excl_vat": eur(1480000, vat="excluded"),
        "budget.estimated_value": eur(2960000),
        "duration": {"value": 24, "unit": "months"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-04-20", "time": "23:59"},
        "economic_solvency.min_annual_turnover": eur(2220000),
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 60},
        "award_criteria.quality_weight": {"percent": 40},
    },
}


# ---- 6. lots with a per-lot budget table, and one blank left in a filled pliego (PDF) ------

LOTES_PLIEGO = [
    ("title", "PLIEGO DE CLÁUSULAS ADMINISTRATIVAS PARTICULARES PARA EL SUMINISTRO DE "
              "MOBILIARIO ESCOLAR"),
    ("small", "Consejería de Educación de la Comunidad de Almenara"),
    ("h1", "I. DISPOSICIONES GENERALES"),
    ("h2", "1ª Objeto"),
    ("p", "Es objeto del contrato el suministro e instalación de mobiliario escolar con destino a "
          "los centros de educación infantil y primaria de nueva apertura."),
    ("h2", "2ª División en lotes"),
    ("p", "El objeto del contrato se divide en tres (3) lotes:"),
    ("table", [["Lote", "Descripción", "Presupuesto (IVA excluido)"],
               ["1", "Mobiliario de aula", "210.000,00 €"],
               ["2", "Mobiliario de comedor", "95.000,00 €"],
               ["3", "Equipamiento de biblioteca", "45.000,00 €"]]),
    ("h2", "3ª Presupuesto y valor estimado"),
    ("p", "El presupuesto base de licitación del contrato asciende a la cantidad de 350.000,00 "
          "euros, IVA no incluido, desglosado por lotes según la tabla anterior. El valor "
          "estimado coincide con dicho importe."),
    ("h2", "4ª Plazo de entrega"),
    ("p", "Los bienes deberán entregarse e instalarse en el plazo máximo de tres meses desde la "
          "formalización del contrato."),
    ("h1", "II. ADJUDICACIÓN"),
    ("h2", "5ª Procedimiento"),
    ("p", "El contrato se adjudicará por procedimiento abierto."),
    ("h2", "6ª Presentación de proposiciones"),
    ("p", "Las proposiciones podrán presentarse hasta las 14:00 horas del día 8 de mayo de 2026."),
    ("h2", "7ª Garantías"),
    ("p", "Garantía provisional: [•] % del presupuesto base de licitación del lote."),
    ("p", "Garantía definitiva: 5 % del importe de adjudicación de cada lote, excluido el IVA."),
    ("h2", "8ª Criterios de adjudicación"),
    ("table", [["Criterio", "Ponderación"], ["Precio", "50 %"], ["Calidad técnica", "50 %"]]),
    ("h2", "9ª Solvencia"),
    ("p", "Solvencia económica: volumen anual de negocios, en el mejor ejercicio de los tres "
          "últimos, igual o superior a una vez y media el presupuesto del lote o lotes a los que "
          "se licite."),
    ("p", "Solvencia técnica: relación de al menos tres suministros similares realizados en los "
          "últimos tres años."),
    ("h2", "10ª Penalidades y pago"),
    ("p", "La demora en la entrega dará lugar a una penalidad del 0,5 por ciento del precio del "
          "lote por cada semana de retraso. El pago se efectuará previa presentación de factura, "
          "en los términos del artículo 198 de la Ley 9/2017."),
]

LOTES = {
    "case": "es-mobiliario-lotes", "lang": "es",
    "docs": [("pliego.pdf", {"font": "Times", "footer": "PCAP mobiliario escolar"}, LOTES_PLIEGO)],
    "gold": {
        "object": {"value": "el suministro e instalación de mobiliario escolar con destino a los "
                            "centros de educación infantil y primaria de nueva apertura"},
        "procedure": "open",
        "budget.base_excl_vat": eur(350000, vat="excluded"),
        # "el valor estimado coincide con dicho importe": 350.000 euros, IVA no incluido
        "budget.estimated_value": eur(350000, vat="excluded"),
        "duration": {"value": 3, "unit": "months"},
        "lots.count": 3,
        "deadline.submission": {"date": "2026-05-08", "time": "14:00"},
        "technical_solvency.min_similar_contracts": 3,
        "guarantee.provisional": BLANK,
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 50},
        "award_criteria.quality_weight": {"percent": 50},
    },
}


# ---- 7. an invitation letter with the blanks of a form (PDF) -------------------------------

INVITACION_PDF = [
    ("title", "INVITACIÓN A PRESENTAR OFERTA"),
    ("p", "Contrato de servicios de asesoría jurídica en materia urbanística"),
    ("p", "Órgano de contratación: Concejalía de Hacienda del Ayuntamiento de Villaseca."),
    ("p", "Por la presente se le invita a presentar oferta para la prestación del servicio de "
          "asesoría jurídica en materia urbanística al Ayuntamiento de Villaseca durante doce "
          "meses."),
    ("p", "Presupuesto máximo: ________ € (IVA excluido)."),
    ("p", "Plazo de presentación: hasta el día ___ de ____________ de 2026 a las ____ horas, en "
          "el registro general."),
    ("p", "Duración del servicio: doce meses desde la firma del contrato."),
    ("p", "El precio será el único criterio de adjudicación (100 % de la puntuación)."),
    ("p", "Solvencia técnica: haber ejecutado, como mínimo, ___ servicios de asesoría similares "
          "en los últimos tres años."),
    ("p", "Garantía definitiva: ___ % del importe de adjudicación."),
    ("p", "Forma de pago: trimestral, en el plazo de 30 días desde la presentación de la factura."),
    ("p", "En Villaseca, a ___ de ____________ de 2026."),
    ("p", "La Concejala de Hacienda"),
]

INVITACION = {
    "case": "es-asesoria-invitacion", "lang": "es",
    "docs": [("invitacion.pdf", {"font": "Helvetica"}, INVITACION_PDF)],
    "gold": {
        "object": {"value": "la prestación del servicio de asesoría jurídica en materia "
                            "urbanística al Ayuntamiento de Villaseca durante doce meses",
                   "also": ["Contrato de servicios de asesoría jurídica en materia urbanística",
                            "servicios de asesoría jurídica en materia urbanística"]},
        "contracting_authority": "Concejalía de Hacienda del Ayuntamiento de Villaseca",
        "budget.base_excl_vat": BLANK,
        "duration": {"value": 12, "unit": "months"},
        "deadline.submission": BLANK,
        "technical_solvency.min_similar_contracts": BLANK,
        "guarantee.definitive": BLANK,
        "award_criteria.price_weight": {"percent": 100},
        "payment.term_days": 30,
    },
}


# ---- second batch: written after the rules were tuned on batch 1 ------------------------

# 8. a DOCX pliego with ordinal clause names and a points table
JARDINES_DOCX = [
    ("h1", "PLIEGO DE PRESCRIPCIONES ADMINISTRATIVAS — CONSERVACIÓN DE ZONAS VERDES"),
    ("p", "Ayuntamiento de Torrecilla del Monte"),
    ("h2", "Primera. Objeto"),
    ("p", "El contrato tendrá por objeto la conservación y mantenimiento de las zonas verdes y "
          "el arbolado viario del municipio. El contrato no está dividido en lotes, porque la "
          "conservación de las zonas verdes exige una única organización del servicio."),
    ("h2", "Segunda. Órgano de contratación"),
    ("p", "La Junta de Gobierno Local es el órgano de contratación."),
    ("h2", "Tercera. Presupuesto"),
    ("p", "El importe máximo de licitación asciende a 212.400,00 euros anuales, IVA no incluido."),
    ("p", "El valor estimado del contrato, teniendo en cuenta las dos prórrogas anuales posibles, "
          "es de 849.600,00 euros."),
    ("h2", "Cuarta. Plazo"),
    ("p", "La duración inicial será de dos años, contados desde el 1 de octubre de 2026."),
    ("h2", "Quinta. Procedimiento y tramitación"),
    ("p", "Procedimiento abierto, tramitación ordinaria, varios criterios de adjudicación."),
    ("h2", "Sexta. Presentación de ofertas"),
    ("p", "Las ofertas se presentarán hasta el día 2 de septiembre de 2026, a las 13:00 horas."),
    ("h2", "Séptima. Solvencia"),
    ("p", "La solvencia económica se acreditará con un volumen anual de negocios, en el mejor "
          "ejercicio de los tres últimos, de importe igual o superior a 318.600 euros. No se "
          "exige clasificación."),
    ("p", "La solvencia técnica se acreditará con la relación de los trabajos de jardinería "
          "realizados en los últimos tres años, de los que al menos dos serán de importe similar "
          "al del contrato."),
    ("h2", "Octava. Garantías"),
    ("p", "No se exige garantía provisional. Garantía definitiva: 5 por ciento del importe de "
          "adjudicación, excluido el IVA."),
    ("h2", "Novena. Criterios de adjudicación"),
    ("table", [["Criterio", "Puntos"], ["Oferta económica", "65"], ["Memoria técnica", "35"]]),
    ("h2", "Décima. Subcontratación"),
    ("p", "El contratista podrá subcontratar como máximo el 30 % de las prestaciones."),
    ("h2", "Undécima. Penalidades"),
    ("p", "Se aplicará una penalidad de 100 euros por cada día de retraso en la ejecución de los "
          "trabajos programados."),
    ("h2", "Duodécima. Pago"),
    ("p", "El pago se realizará mediante factura mensual, que será abonada en un plazo máximo de "
          "treinta días."),
]

JARDINES = {
    "case": "es-jardines-clausulas-ordinales", "lang": "es", "batch": 2,
    "docs": [("pliego.docx", None, JARDINES_DOCX)],
    "gold": {
        "object": {"value": "la conservación y mantenimiento de las zonas verdes y el arbolado "
                            "viario del municipio"},
        "contracting_authority": "La Junta de Gobierno Local",
        "procedure": "open",
        "budget.base_excl_vat": eur(212400, vat="excluded"),
        "budget.estimated_value": eur(849600),
        "duration": {"value": 2, "unit": "years"},
        "lots.count": 1,
        "deadline.submission": {"date": "2026-09-02", "time": "13:00"},
        "economic_solvency.min_annual_turnover": eur(318600, basis="best_of_last_3_years"),
        "technical_solvency.min_similar_contracts": 2,
        "guarantee.provisional": {"required": False},
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 65},
        "award_criteria.quality_weight": {"percent": 35},
        "subcontracting.max_percent": {"percent": 30},
        "penalties.delay_per_day": eur(100),
        "payment.term_days": 30,
    },
}

# 9. a notice template (HTML) with other placeholder shapes, and a rate that is no per-day sum
MOVILIDAD_HTML = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Plantilla de anuncio</title></head>
<body>
<h1>Anuncio de licitación — Servicio de consultoría para el plan de movilidad</h1>
<p>Entidad adjudicadora: Consorcio de Transportes del Área de Valdeserra</p>
<table>
<tr><td>Objeto</td><td>Redacción del plan de movilidad urbana sostenible del área de Valdeserra</td></tr>
<tr><td>Procedimiento</td><td>Abierto simplificado</td></tr>
<tr><td>Presupuesto base de licitación</td><td>XX.XXX,XX € (IVA excluido)</td></tr>
<tr><td>Valor estimado</td><td>[*]</td></tr>
<tr><td>Plazo de ejecución</td><td>8 meses</td></tr>
<tr><td>Fecha límite de presentación</td><td>dd/mm/aaaa hh:mm</td></tr>
<tr><td>Garantía definitiva</td><td>5 %</td></tr>
</table>
<p>Criterios de adjudicación: precio, 40 puntos; calidad técnica de la propuesta, 60 puntos (total 100 puntos).</p>
<p>Solvencia económica: volumen de negocios anual mínimo de &lt;importe&gt; euros.</p>
<p>Los licitadores deberán acreditar la ejecución de al menos ____ trabajos de naturaleza similar.</p>
<p>Penalidades por demora: 0,20 euros por cada 1.000 euros del precio del contrato por día de retraso.</p>
</body></html>
"""

MOVILIDAD = {
    "case": "es-movilidad-anuncio-plantilla", "lang": "es", "batch": 2,
    "docs": [("anuncio.html", None, MOVILIDAD_HTML)],
    "gold": {
        "object": {"value": "Redacción del plan de movilidad urbana sostenible del área de "
                            "Valdeserra"},
        "contracting_authority": "Consorcio de Transportes del Área de Valdeserra",
        "procedure": "simplified_open",
        "budget.base_excl_vat": BLANK,
        "budget.estimated_value": BLANK,
        "duration": {"value": 8, "unit": "months"},
        "deadline.submission": BLANK,
        "economic_solvency.min_annual_turnover": BLANK,
        "technical_solvency.min_similar_contracts": BLANK,
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 40},
        "award_criteria.quality_weight": {"percent": 60},
    },
}

# 10. a PDF with a three-column characteristics table and a bid form to fill in
EQUIPOS_PDF = [
    ("title", "CONTRATO DE SUMINISTRO DE EQUIPOS INFORMÁTICOS PARA LOS CENTROS DE SALUD"),
    ("small", "Servicio Regional de Salud de Almenara"),
    ("p", "1. Objeto: adquisición de 450 ordenadores de sobremesa y 120 portátiles con destino a "
          "los centros de salud de la región."),
    ("h2", "Cuadro de características"),
    ("table", [["Concepto", "Valor", "Observaciones"],
               ["Presupuesto base de licitación", "468.000,00 €", "IVA excluido"],
               ["IVA (21 %)", "98.280,00 €", "—"],
               ["Valor estimado", "468.000,00 €", "Sin prórrogas"],
               ["Plazo de entrega", "3 meses", "Desde la formalización"],
               ["Garantía definitiva", "5 %", "Del importe de adjudicación"],
               ["Lotes", "2", "Sobremesa y portátiles"]]),
    ("p", "2. Procedimiento: abierto, con sujeción a regulación armonizada."),
    ("p", "3. Ofertas. El plazo para la presentación de ofertas finaliza a las 15:00 horas del 18 "
          "de junio de 2026."),
    ("p", "4. Solvencia. Volumen anual de negocios en el ámbito del contrato de, al menos, "
          "702.000 euros en alguno de los tres últimos ejercicios. Haber efectuado al menos tres "
          "suministros de equipos informáticos similares en los últimos tres años."),
    ("p", "5. Criterios de adjudicación. Precio: 70 %. Mejoras técnicas y calidad del "
          "equipamiento: 30 %."),
    ("p", "6. Pago. El abono del precio se efectuará en el plazo de 30 días a contar desde la "
          "fecha de conformidad."),
    ("break",),
    ("h2", "ANEXO II — MODELO DE PROPOSICIÓN ECONÓMICA"),
    ("p", "D./Dña. ______________, con DNI nº __________, en nombre de ______________, se "
          "compromete a ejecutar el contrato por el importe de ____________ euros, IVA excluido, "
          "y en un plazo de entrega de ___ meses."),
    ("p", "En ____________, a ___ de ____________ de 2026."),
]

EQUIPOS = {
    "case": "es-equipos-cuadro-modelo", "lang": "es", "batch": 2,
    "docs": [("pliego.pdf", {"font": "Helvetica", "footer": "Suministro de equipos"}, EQUIPOS_PDF)],
    "gold": {
        "object": {"value": "adquisición de 450 ordenadores de sobremesa y 120 portátiles con "
                            "destino a los centros de salud de la región"},
        "procedure": "open",
        "budget.base_excl_vat": eur(468000, vat="excluded"),
        "budget.estimated_value": eur(468000),
        "duration": {"value": 3, "unit": "months"},
        "lots.count": 2,
        "deadline.submission": {"date": "2026-06-18", "time": "15:00"},
        "economic_solvency.min_annual_turnover": eur(702000, basis="best_of_last_3_years"),
        "technical_solvency.min_similar_contracts": 3,
        "guarantee.definitive": {"percent": 5},
        "award_criteria.price_weight": {"percent": 70},
        "award_criteria.quality_weight": {"percent": 30},
        "payment.term_days": 30,
    },
}

CASES = [OBRAS, VEHICULOS, LIMPIEZA, MANTENIMIENTO, PERFIL, LOTES, INVITACION,
         JARDINES, MOVILIDAD, EQUIPOS]
