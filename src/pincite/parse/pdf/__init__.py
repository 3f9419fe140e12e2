"""PDF → text layer with pypdfium2: characters and their boxes read into lines, lines
into blocks in reading order, tables detected from words and rulings.

`reading` is the parser (`PARSER`, `VERSION`, `parse`); the rest, in the order they
build on each other: `pdfium_api` (raw entry points) → `optional_content` (layers
switched off), `concealed` (text under a later fill, outside its clip) → `objects` (hidden
text), `bidi` (right-to-left order), `superscripts`, `nfc` → `frames` (the page as shown,
the frame each glyph reads in) → `lines` → `line_order` (a page's lines in reading order)
→ `running` (headers and footers) → `page_words` → `columns`, `spans`, `blocks`, `grid`
→ `table_detect` → `table_flow` (tables across pages) → `builder`. `render` draws page
images for the report and the review page.
"""
