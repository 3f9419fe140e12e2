"""The part of docling's `DoclingDocument` JSON that pincite reads, as strict input records.

docling (https://github.com/docling-project/docling) exports a parse as a
`DoclingDocument`: `schema_name` "DoclingDocument", a semantic `version` ("1.10.0"), a
`body` tree whose `children` are JSON references (`{"$ref": "#/texts/3"}`) into flat
collections (`texts`, `groups`, `tables`, `pictures`, `key_value_items`, `form_items`,
`field_regions`, `field_items`), and `pages` (size per page number). Items carry `prov`:
the page, a box (`l`, `t`, `r`, `b` and its `coord_origin`) and the character span of the
item's text that the box holds.

What is read is checked strictly: strings are strings, integers integers, numbers finite,
page numbers within `Limits.max_pages`, references of the form `#/<collection>/<index>`,
table cell offsets within their table. Fields pincite does not read (images, annotations,
formatting, hyperlinks…) are ignored, so a minor version of the schema that adds fields
still reads; a major version other than 1 is refused (`docling_tree.parse`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

SCHEMA_NAME = "DoclingDocument"
READ_MAJOR = 1  # the major version of the schema this module reads
COLLECTIONS = ("texts", "groups", "tables", "pictures", "key_value_items", "form_items",
               "field_regions", "field_items")
MAX_INDEX = 10**8

Finite = Annotated[float, Field(allow_inf_nan=False, ge=-1e7, le=1e7)]
Count = Annotated[StrictInt, Field(ge=0, le=10**7)]
PageNo = Annotated[StrictInt, Field(ge=1, le=10**6)]
RefPath = Annotated[StrictStr, Field(pattern=r"^#/(?:body|furniture|[a-z_]{1,32}/\d{1,9})$")]


class _Input(BaseModel):
    """A record read from the JSON: unknown fields ignored, known ones checked."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=False)


class Ref(_Input):
    """A JSON reference to another item (`#/texts/3`)."""

    ref: RefPath = Field(alias="$ref")


class Box(_Input):
    """A box in page points; `coord_origin` says where y is measured from."""

    l: Finite  # noqa: E741 - docling's field name
    t: Finite
    r: Finite
    b: Finite
    coord_origin: Literal["TOPLEFT", "BOTTOMLEFT"] = "TOPLEFT"


class Prov(_Input):
    """Where (part of) an item's text lies: page, box, and the span of the text it holds."""

    page_no: PageNo
    bbox: Box
    charspan: Annotated[list[Count], Field(min_length=2, max_length=2)] | None = None


class Node(_Input):
    """Any item of the tree: a group, a text, a table, a picture, a field region."""

    self_ref: RefPath
    parent: Ref | None = None
    children: list[Ref] = Field(default_factory=list)
    content_layer: StrictStr = "body"
    label: StrictStr = "unspecified"
    prov: list[Prov] = Field(default_factory=list)
    captions: list[Ref] = Field(default_factory=list)
    footnotes: list[Ref] = Field(default_factory=list)


class TextNode(Node):
    """A text item: title, section header (with `level`), paragraph, list item, caption…"""

    text: StrictStr
    level: Annotated[StrictInt, Field(ge=0, le=100)] | None = None
    enumerated: StrictBool | None = None
    marker: StrictStr | None = None


class Cell(_Input):
    """One table cell: its text, grid offsets (end exclusive) and header marks."""

    text: StrictStr = ""
    bbox: Box | None = None
    start_row_offset_idx: Count
    end_row_offset_idx: Count
    start_col_offset_idx: Count
    end_col_offset_idx: Count
    column_header: StrictBool = False
    row_header: StrictBool = False
    row_section: StrictBool = False


class TableData(_Input):
    """A table's cells and the size of its grid."""

    table_cells: list[Cell] = Field(default_factory=list)
    num_rows: Count = 0
    num_cols: Count = 0


class TableNode(Node):
    """A table item."""

    data: TableData


class PageSize(_Input):
    """A page's width and height in points."""

    width: Annotated[float, Field(allow_inf_nan=False, gt=0, le=1e6)]
    height: Annotated[float, Field(allow_inf_nan=False, gt=0, le=1e6)]


class Page(_Input):
    """A page of the converted document."""

    page_no: PageNo
    size: PageSize


class Origin(_Input):
    """What docling converted: its media type and file name."""

    mimetype: StrictStr = ""
    filename: StrictStr = ""


class DoclingDocumentIn(_Input):
    """The document: its tree (`body`), the collections the tree refers into, its pages."""

    schema_name: Literal["DoclingDocument"]
    version: Annotated[StrictStr, Field(pattern=r"^\d{1,4}\.\d{1,4}\.\d{1,4}$")]
    name: StrictStr = ""
    origin: Origin | None = None
    body: Node
    groups: list[Node] = Field(default_factory=list)
    texts: list[TextNode] = Field(default_factory=list)
    tables: list[TableNode] = Field(default_factory=list)
    pictures: list[Node] = Field(default_factory=list)
    key_value_items: list[Node] = Field(default_factory=list)
    form_items: list[Node] = Field(default_factory=list)
    field_regions: list[Node] = Field(default_factory=list)
    field_items: list[Node] = Field(default_factory=list)
    pages: dict[Annotated[str, Field(pattern=r"^\d{1,7}$")], Page] = Field(default_factory=dict)
