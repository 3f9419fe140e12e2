"""Tables in a text layer, whatever format they came from.

- `cues`        what a cell's text says about its role (a unit, a period, a label)
- `structure`   header rows, label columns and header paths of a grid (`analyse`)
- `grid_layer`  a grid added to the layer being assembled: cell elements and locators
"""
