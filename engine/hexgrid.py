"""The 7x7 quilt grid: cell indices, names, neighbours and rotations, as tables built at import.

A cell is an int ``r * 7 + c`` (rows top to bottom, columns left to right). Odd rows are shifted
half a hex to the right (the "odd-r" layout of the printed board). Players name the 25 inner
cells A1..E5: the letter is the row (A = row 1), the digit the column.
"""

from __future__ import annotations

SIZE = 7
CELLS = SIZE * SIZE

_EVEN = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0))
_ODD = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1))


def cell_of(r: int, c: int) -> int:
    return r * SIZE + c


def row_col(cell: int) -> tuple[int, int]:
    return divmod(cell, SIZE)


def _neighbours(cell: int) -> tuple[int, ...]:
    r, c = row_col(cell)
    out = []
    for dr, dc in _ODD if r & 1 else _EVEN:
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(cell_of(rr, cc))
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(CELLS))
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(1 << n for n in ns) for ns in NEIGHBOURS)

BORDER: tuple[int, ...] = tuple(
    i for i in range(CELLS) if row_col(i)[0] in (0, SIZE - 1) or row_col(i)[1] in (0, SIZE - 1)
)
INNER: tuple[int, ...] = tuple(i for i in range(CELLS) if i not in BORDER)

_ROWS = "ABCDE"


def cell_name(cell: int) -> str:
    """``A1``..``E5`` for inner cells."""
    r, c = row_col(cell)
    if not (1 <= r <= 5 and 1 <= c <= 5):
        raise ValueError(f"cell {cell} is not an inner cell")
    return f"{_ROWS[r - 1]}{c}"


CELL_BY_NAME: dict[str, int] = {cell_name(i): i for i in INNER}


def parse_cell(name: str) -> int:
    """The cell index for a name like ``C3`` (case-insensitive); ValueError otherwise."""
    try:
        return CELL_BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(f"no cell {name!r}: cells are A1 to E5") from None


def to_axial(cell: int) -> tuple[int, int]:
    r, c = row_col(cell)
    return c - (r - (r & 1)) // 2, r


def from_axial(q: int, r: int) -> int | None:
    c = q + (r - (r & 1)) // 2
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return cell_of(r, c)
    return None


def _rotate(q: int, r: int) -> tuple[int, int]:
    # 60 degrees in cube coordinates: (x, y, z) -> (-z, -x, -y), with x = q, z = r.
    s = -q - r
    return -r, -s


def shape_masks(shape: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """Every placement of ``shape`` (axial offsets) on the grid, in all six rotations, as masks."""
    masks: set[int] = set()
    pts = list(shape)
    for _ in range(6):
        pts = [_rotate(q, r) for q, r in pts]
        for anchor in range(CELLS):
            aq, ar = to_axial(anchor)
            mask = 0
            for q, r in pts:
                cell = from_axial(aq + q, ar + r)
                if cell is None:
                    break
                mask |= 1 << cell
            else:
                masks.add(mask)
    return tuple(sorted(masks))


# Bit-parallel neighbourhood: shifting a whole mask at once lets a flood fill grow a group
# ring by ring in a handful of integer operations instead of visiting cells one by one.
FULL = (1 << CELLS) - 1
_EVEN_ROWS = sum(1 << i for i in range(CELLS) if not row_col(i)[0] & 1)
_ODD_ROWS = FULL ^ _EVEN_ROWS
_NOT_COL0 = sum(1 << i for i in range(CELLS) if row_col(i)[1] != 0)
_NOT_LAST = sum(1 << i for i in range(CELLS) if row_col(i)[1] != SIZE - 1)


def dilate(mask: int) -> int:
    """``mask`` plus every neighbour of its cells."""
    even, odd = mask & _EVEN_ROWS, mask & _ODD_ROWS
    e0, o6 = even & _NOT_COL0, odd & _NOT_LAST
    grown = (
        mask
        | (mask & _NOT_LAST) << 1
        | (mask & _NOT_COL0) >> 1
        | e0 >> 8 | even >> 7 | e0 << 6 | even << 7
        | odd >> 7 | o6 >> 6 | odd << 7 | o6 << 8
    )
    return grown & FULL


def flood(start: int, allowed: int) -> int:
    """The connected part of ``allowed`` (a mask) that contains cell ``start``."""
    group = 1 << start
    while True:
        grown = dilate(group) & allowed
        if grown == group:
            return group
        group = grown
