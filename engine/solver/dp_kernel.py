"""The compiled heart of the fast solver: a dynamic programme over the numbers.

After van Rijn, Takes and Vis ("The complexity of Rummikub problems", 2015), extended with
jokers, table tiles that must stay, rack tiles that may be played, and the "fewest changes"
tie-break. The numbers are walked from low to high; what must be remembered between two
numbers is, per colour, how many runs are open and how long each is (1, 2 or 3+: a run of 3
or more may stop, a shorter one must go on), how many jokers are in use, and which old table
runs are being kept exactly as they were (their tiles are spoken for).

One number is handled in steps, each a layer of states in a hash table:

* **keep**: each old set (run or group) whose first numbered tile is at this number is kept
  whole or not; a kept set's tiles are spoken for until its last number;
* **colour** (one layer per colour): how many rack tiles of this colour and number to play,
  which open runs go on (with the tile or with a joker), which stop, how many new runs start,
  and how many tiles are left over for groups (the state remembers how many, and the most of
  one colour);
* **close**: the leftovers, with some jokers, must make valid groups. (Done within the last
  colour's layer when that one is walked, so its many states of "tiles left for groups" are
  never stored.)

A step that would copy every state unchanged (no old set starts at this number; a colour with
no tile here and no run open in it) is skipped.

At the end of each number, states that another state dominates (one of its colours one step
better: a run longer, or one more run of 3+; at least the score) are dropped, and every state
that can no longer reach the floors the caller sets is skipped (branch and bound: see
:func:`solve_dp`). A state is also dropped as soon as it cannot be finished (see
:func:`_lookahead`): when its runs of 1 and 2 would need more jokers than are left, beyond the
free tiles of the next numbers, or its leftovers could not make groups with what the later
colours can add. (Measured on XP boxes, 120 positions: the median hint 15 -> 10 ms; mid-game
2.6 -> 1.8 ms.)

Past the last number come a few *virtual* numbers with no tiles, where runs may go on with
jokers only. A run therefore never needs a joker in front of its first numbered tile: a set
``J r12 r13`` is found as ``r12 r13 J(14)`` and the caller lays it out (see dp.py). A run
always starts with a numbered tile, and a group always holds one, so no set is jokers only.

The score of a state is one int64 that packs the objective's criteria (see dp.py); every state
is a row (key, score, parent row, choice) in one array that holds all layers one after
another, so the caller can walk back from the best final state and read the choices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the state key, packed into an int64
PROFILE_BITS = 9  # per colour c at bit 9c: open runs of length 1, 2 and 3+ (3 bits each)
J_SHIFT = 36  # jokers in use (3 bits)
G_SHIFT = 39  # tiles of this number left for groups so far: count (4 bits), most of a colour (2 bits)
MASK_SHIFT = 47  # one bit per slot of a kept old set (16 slots)
MAX_SLOTS = 16
MAX_JOKERS = 7
MAX_RUNS = 7
MAX_COPIES = 3
MAX_COLOURS = 4

# choice codes per layer kind (the caller decodes them)
#   keep:   bit q set = the q-th old set starting at this number is kept
#   colour: x rack tiles played | i1<<3 runs of 1 and i2<<6 runs of 2 going on with a joker |
#           e3<<9 runs of 3+ going on, e3j<<12 of them with a joker | s<<15 runs started
#   close:  jokers put in groups


@njit(cache=True, inline="always")
def _hash(key, cap_mask):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((h >> np.uint64(21)) & np.uint64(cap_mask))


#: rows the arrays start with at most (they double when a walk needs more); a walk with a
#: smaller budget starts smaller (zeroing the hash table is most of a small walk's cost)
START_ROWS = 1 << 12
#: keeps a beam's ranks positive (a rank of -1 marks a dropped state)
BEAM_OFFSET = 1 << 40


@njit(cache=True, inline="always")
def _put(data, count, slots, gen, key, score, parent, choice):
    """Put a state into the current layer, keeping the better score; returns the new count.

    The hash table ``slots`` holds per slot the key and (layer stamp << 32 | row), side by side
    so one probe reads one cache line; the stamp ``gen`` changes per layer, so the table never
    needs clearing. There is always room: :func:`_room` runs before each state's successors.
    """
    cap_mask = slots.shape[0] - 1
    h = _hash(key, cap_mask)
    while (slots[h, 1] >> 32) == gen:
        if slots[h, 0] == key:
            e = slots[h, 1] & 0xFFFFFFFF
            if score > data[e, 1]:
                data[e, 1] = score
                data[e, 2] = parent
                data[e, 3] = choice
            return count
        h = (h + 1) & cap_mask
    slots[h, 0] = key
    slots[h, 1] = (gen << 32) | count
    data[count, 0] = key
    data[count, 1] = score
    data[count, 2] = parent
    data[count, 3] = choice
    return count + 1


@njit(cache=True, inline="always")
def _short_of_room(data, count, lo, slots, more):
    """Whether ``more`` rows would overflow the rows or crowd the layer's hash table."""
    return count + more >= data.shape[0] or 2 * (count - lo + more) > slots.shape[0]


@njit(cache=True)
def _room(data, count, lo, slots, gen, dead, more):
    """Grow the rows and the hash table of the layer being built (rows lo..count-1) so that
    ``more`` more rows fit. Returns (data, slots, gen, dead)."""
    if count + more >= data.shape[0]:
        size = 2 * data.shape[0]
        while count + more >= size:
            size *= 2
        bigger = np.empty((size, 4), np.int64)
        bigger[:count] = data[:count]
        data = bigger
        flags = np.zeros(size, np.int8)
        flags[:count] = dead[:count]
        dead = flags
    if 2 * (count - lo + more) > slots.shape[0]:
        cap = 2 * slots.shape[0]
        while 2 * (count - lo + more) > cap:
            cap *= 2
        slots = np.zeros((cap, 2), np.int64)
        gen += 1
        for e in range(lo, count):
            h = _hash(data[e, 0], cap - 1)
            while (slots[h, 1] >> 32) == gen:
                h = (h + 1) & (cap - 1)
            slots[h, 0] = data[e, 0]
            slots[h, 1] = (gen << 32) | e
    return data, slots, gen, dead


@njit(cache=True, inline="always")
def groups_feasible_real(r, mx, jokers, colours, wilds):
    """:func:`groups_feasible` where ``wilds`` of the ``r`` tiles are Expert's coloured jokers
    (counted as tiles of their colour): each group still needs a numbered tile."""
    total = r + jokers
    if total == 0:
        return True
    g_lo = max(mx, (total + colours - 1) // colours)
    g_hi = min(r - wilds, total // 3)
    return g_lo <= g_hi


@njit(cache=True, inline="always")
def groups_feasible(r, mx, jokers, colours):
    """Can ``r`` numbered tiles of one number (at most ``mx`` of a colour) and ``jokers`` jokers
    be split into groups of 3..colours tiles, distinct colours, each with a numbered tile?

    With G groups it works iff mx <= G <= r and 3G <= r + jokers <= colours*G (deal the tiles
    round the groups, then top up with jokers), so some G in that range must exist.
    """
    total = r + jokers
    if total == 0:
        return True
    g_lo = max(mx, (total + colours - 1) // colours)
    g_hi = min(r, total // 3)
    return g_lo <= g_hi


@njit(cache=True)
def path(rows, best, ran):
    """The choices along the path that ends at row ``best``, one per layer, first layer first
    (0, "nothing", for a layer that was not walked; ``ran`` is 2 for a last colour's layer
    that also made the groups, its choice then holds the jokers in groups at bits 18-20)."""
    out = np.zeros(ran.shape[0], np.int64)
    row = best
    for k in range(ran.shape[0] - 1, -1, -1):
        if ran[k] == 1:
            out[k] = rows[row, 3]
            row = rows[row, 2]
        elif ran[k] == 2:  # a last colour's layer that also closed its number: two choices
            out[k] = rows[row, 3] & ~(np.int64(7) << 18)
            out[k + 1] = (rows[row, 3] >> 18) & 7
            row = rows[row, 2]
    return out


def dominators() -> tuple[np.ndarray, np.ndarray]:
    """Per colour profile (n1 | n2<<3 | n3<<6): the profiles one step better than it.

    Open runs of lengths 1, 2, 3+ in one colour. A profile is better if one of its runs is
    longer (1 -> 2, 2 -> 3+, 1 -> 3+) or it has one more run of 3+: whatever the weaker state
    can still do, the stronger can copy (a longer run may take the same tiles; a 3+ run may
    stop at once). One step only, so the check stays cheap; chains of steps are usually
    caught through the states in between.
    """
    lists: list[list[int]] = []
    for code in range(512):
        n1, n2, n3 = code & 7, code >> 3 & 7, code >> 6 & 7
        found = []
        better = ((n1 - 1, n2 + 1, n3), (n1, n2 - 1, n3 + 1), (n1 - 1, n2, n3 + 1), (n1, n2, n3 + 1))
        for m1, m2, m3 in better:
            if min(m1, m2, m3) >= 0 and max(m1, m2, m3) <= 7:
                found.append(m1 | m2 << 3 | m3 << 6)
        lists.append(found)
    start = np.zeros(513, np.int64)
    start[1:] = np.cumsum([len(f) for f in lists])
    return start, np.array([q for f in lists for q in f], np.int64)


@njit(cache=True, inline="always")
def _find(slots, gen, key):
    """Row of ``key`` in the current layer, or -1."""
    cap_mask = slots.shape[0] - 1
    h = _hash(key, cap_mask)
    while (slots[h, 1] >> 32) == gen:
        if slots[h, 0] == key:
            return slots[h, 1] & 0xFFFFFFFF
        h = (h + 1) & cap_mask
    return -1


@njit(cache=True)
def _prune_dominated(data, lo, count, slots, gen, colours, dom_start, dom_list, dead, jokers_free):
    """Mark the states of this layer that another state of it dominates (same jokers, kept runs
    and group leftovers; each colour's runs at least as good; at least the score). With
    ``jokers_free`` (a walk where jokers need not be placed and gain nothing) a state with
    one joker fewer in use and all else the same dominates too."""
    one_joker = np.int64(1) << J_SHIFT
    for i in range(lo, count):
        key = data[i, 0]
        sc = data[i, 1]
        if jokers_free and (key >> J_SHIFT) & 7:
            e = _find(slots, gen, key - one_joker)
            if e >= 0 and data[e, 1] >= sc:
                dead[i] = 1
                continue
        for c in range(colours):
            shift = PROFILE_BITS * c
            code = (key >> shift) & 0x1FF
            cleared = key & ~(np.int64(0x1FF) << shift)
            for d in range(dom_start[code], dom_start[code + 1]):
                e = _find(slots, gen, cleared | (dom_list[d] << shift))
                if e >= 0 and data[e, 1] >= sc:
                    dead[i] = 1
                    break
            if dead[i]:
                break


@njit(cache=True, inline="always")
def _tie_break(key, colours):
    """Among beam states of equal score, prefer those with fewer runs still shorter than 3
    (each must find more tiles to become valid); then an arbitrary but fixed order. 0..63."""
    short = 0
    for c in range(colours):
        short += ((key >> (PROFILE_BITS * c)) & 7) + ((key >> (PROFILE_BITS * c + 3)) & 7)
    return max(0, 7 - short) * 8 + _hash(key, 7)


@njit(cache=True, inline="always")
def _unchanging(step, v, colours, set_start, table_count, rack_count, spare_count, data, dead, lo, hi):
    """Whether a layer would copy every state unchanged: a keep step where no old set starts,
    or a colour with no tile at this number and no run open in it."""
    if step == 0:
        return set_start[v + 1] == set_start[v]
    if step > colours:
        return False
    c = step - 1
    if table_count[v, c] or rack_count[v, c] or spare_count[v, c]:
        return False
    shift = PROFILE_BITS * c
    for i in range(lo, hi):
        if not dead[i] and (data[i, 0] >> shift) & 0x1FF:
            return False
    return True


@njit(cache=True)
def _lookahead(values, colours, copies, table_count, rack_count, spare_count):
    """What the numbers ahead can still offer, so that a state that cannot be finished is dropped
    at once rather than layers later (after its copies have spread through them).

    tiles[v, c]: the tiles of number v and colour c a walk may place (none past the last number).
    A run of 1 or 2 open at v needs one of them or a joker at v + 1, a run of 1 also at v + 2.

    supply[v, c, g]: the most tiles the colours after c could add to the groups of number v if
    there are g of them (a group takes at most one tile of a colour). Leftovers that need g
    groups (g of one colour) close the number only if 3 g tiles can be found: among them, in
    this supply and in the jokers not yet used.
    """
    tiles = np.zeros((values + 2, colours), np.int64)
    tiles[:values] = table_count + rack_count + spare_count
    supply = np.zeros((values, colours, 4), np.int64)
    for v in range(values):
        for c in range(colours - 1, 0, -1):
            most = min(tiles[v, c], copies)
            for g in range(4):
                supply[v, c - 1, g] = supply[v, c, g] + min(most, g)
    return tiles, supply


@njit(cache=True, inline="always")
def _held(slot_bits, mask, v, c):
    """How many of the kept old sets in ``mask`` hold the tile of number v and colour c (a set
    holds at most one of each)."""
    held = mask & slot_bits[v, c]
    count = 0
    while held:
        held &= held - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _free_tiles(tiles, slot_bits, mask, v, c):
    """The tiles of number v and colour c that the kept old sets in ``mask`` (sets that hold
    tiles at v) leave free."""
    if v >= slot_bits.shape[0]:
        return tiles[v, c]
    return tiles[v, c] - _held(slot_bits, mask, v, c)


@njit(cache=True)
def solve_dp(
    box,
    table_count,
    rack_count,
    jokers,
    table_jokers,
    set_start,
    w_primary,
    primary_left,
    kept_need,
    primary_floor,
    row_budget,
    beam,
    v_start,
    spare_count,
    rack_jokers,
    play_all,
    kind_need,
    wild,
    w_field,
):
    """The best final state. Returns (row of the best final state, -1 if none, -2 if the walk
    needed more than ``row_budget`` states; its score; the rows; which layers were walked, see
    :func:`path`; per number of jokers used, the most old sets kept by a final state that
    reaches the floors, -1 if none).

    ``box``: what every walk of one position shares, in the order unpacked below. values: numbers
    including the virtual ones; table_count/rack_count[v, c]: table tiles that must be placed /
    rack tiles that may be; tile_gain[v]: score of one rack tile of number v; jokers: in the
    pool (table and rack), table_jokers of them must be placed, joker_gain per rack joker
    played; kept_gain per old set kept whole. Old sets (runs and groups) whose first numbered
    tile is at v: set_start[v]..set_start[v+1]-1 (none for a walk without keep choices), each
    with its slot and jokers; slot_bits[v, c]: the slots whose kept set holds the tile of colour
    c and number v (a set holds at most one of each); slot_free_after[v]: slots whose set ends
    at v; dom_start/dom_list: see :func:`dominators`.

    Branch and bound: a state is dropped when even playing every rack tile still to come could
    not reach ``primary_floor`` (the primary criterion, score // w_primary; primary_left[v] is
    that optimistic remainder from number v on), or when it has kept fewer old sets (score %
    w_kept_span) than kept_need[v, j], j its jokers in use: the caller's floor less the most
    the sets still undecided can add (before the keep step of v row v applies, after it row
    v + 1; row ``values`` is the floor of a final state).

    ``kind_need[v, c]``: (tiles of number v and colour c that must go into runs, the slots
    whose kept set holds one of them instead, tiles that must go into groups, the same slots):
    a table joker that goes on standing for that tile in a set of its old kind
    (engine.solver.fates); zeros where no such joker is.

    ``wild[c]``: Expert's coloured jokers of colour c, walked as *wild tiles* of that colour
    (a coloured joker stands for a tile of its colour, in a run or a group: a tile of colour
    c whose number the walk chooses): (in the pool, of them on the table and to be placed, bit
    of its count of those in use in the key, bits of that count). ``w_field``: (bit, bits) of
    the count of wild tiles in this number's groups (each group needs a numbered tile). Zeros
    where there are none; a position has plain jokers or coloured ones, never both.

    A walk may start at number ``v_start`` (a relaxed tail of the position, see dp.py);
    ``spare_count[v, c]`` tiles may be placed or not, at no gain (table tiles such a tail need
    not place); rack jokers played are credited up to ``rack_jokers``. ``play_all``: every rack
    tile must be played (the walk skips the states that leave one). ``beam`` > 0 keeps only
    that many best states per layer: quick, but a failure then proves nothing. "Best" is the
    score a state might still reach (its score plus what the kept bounds still allow it, so a
    state that spent its jokers early ranks lower: on XP boxes, where the beam often found no
    play at all, the median hint over 200 positions went from 15.4 to 14.2 ms).
    """
    (values, colours, copies, tile_gain, joker_gain, kept_gain, set_slot, set_jokers, slot_bits,
     slot_free_after, dom_start, dom_list, w_kept_span, set_wild) = box
    rows = 64
    while rows < START_ROWS and rows <= row_budget:
        rows *= 2
    data = np.empty((rows, 4), np.int64)
    slots = np.zeros((2 * rows, 2), np.int64)
    gen = np.int64(1)
    data[0, 0] = 0  # the empty state: nothing open, no joker, no kept run
    data[0, 1] = 0
    data[0, 2] = -1
    data[0, 3] = 0
    count = 1
    dead = np.zeros(rows, np.int8)
    prev_lo = 0
    prev_hi = 1
    ran = np.zeros(values * (colours + 2), np.int8)  # the layers walked (others changed nothing)
    wild_on = wild[:, 0].sum() > 0
    span = values
    group_cap = np.full(colours, copies, np.int64)  # tiles of a colour one number's groups take
    if wild_on:
        span = values - jokers  # the virtual numbers: runs go on there, with wild tiles only
        for c in range(colours):
            group_cap[c] = min(3, copies + wild[c, 0])
        extra = spare_count.copy()
        for c in range(colours):
            extra[:, c] += wild[c, 0]  # optimistic: what the lookahead may count on
        tiles, supply = _lookahead(values, colours, min(3, copies + 2), table_count, rack_count, extra)
    else:
        tiles, supply = _lookahead(values, colours, copies, table_count, rack_count, spare_count)
    j_bits = np.int64(7) << J_SHIFT
    g_bits = np.int64(0x3F) << G_SHIFT
    w_mask = (np.int64(1) << w_field[1]) - 1
    w_bits = w_mask << w_field[0]
    g_bits |= w_bits  # the wild tiles in this number's groups are cleared with the groups
    for v in range(v_start, values):
        closed = False  # the last colour's layer has already made the groups of this number
        for step in range(colours + 2):
            if step == colours + 1 and closed:
                continue
            if 1 <= step <= colours and wild[step - 1, 0] > 0:
                pass  # a colour with coloured jokers: its wild tiles may be laid at any number
            elif _unchanging(step, v, colours, set_start, table_count, rack_count, spare_count, data, dead,
                             prev_lo, prev_hi):
                continue  # every state would stay as it is: no layer, no copies
            # the last colour's layer also closes the number (its rows would be 40 % of all)
            merge = step == colours
            closed = merge
            ran[v * (colours + 2) + step] = 2 if merge else 1
            closing = ~(g_bits | (np.int64(slot_free_after[v]) << MASK_SHIFT))  # what closing clears
            lo = count
            gen += 1
            # the floors as thresholds on this layer's scores (no division per state)
            primary_need = (primary_floor - primary_left[v]) * w_primary
            need_row = kept_need[v if step == 0 else v + 1]
            # what every state this layer makes must keep: the next layer's floors (an old set
            # is kept at a keep step only, so a state is dropped here rather than stored to be
            # skipped there; on XP boxes a third of a keep layer's states were such)
            need_next = kept_need[v + 1]
            for i in range(prev_lo, prev_hi):
                if count > row_budget:  # over budget: stop at once (the layer would be lost)
                    return -2, np.int64(0), data[:count], ran, np.full(jokers + 1, -1, np.int64)
                if dead[i]:
                    continue
                key = data[i, 0]
                sc = data[i, 1]
                if sc < primary_need:
                    continue  # even every rack tile still to come would not reach the floor
                j = (key >> J_SHIFT) & 7
                kept = sc % w_kept_span
                if need_row[j] > 0 and kept < need_row[j]:
                    continue  # even keeping the most the sets still undecided allow would not
                if step == 0:  # keep old runs starting here, or not
                    r0 = set_start[v]
                    nr = set_start[v + 1] - r0
                    more = 1 << nr
                    if _short_of_room(data, count, lo, slots, more):
                        data, slots, gen, dead = _room(data, count, lo, slots, gen, dead, more)
                    for subset in range(1 << nr):
                        nk = key
                        ns = sc
                        jj = j
                        for q in range(nr):
                            if subset >> q & 1:
                                nk |= np.int64(1) << (MASK_SHIFT + set_slot[r0 + q])
                                ns += kept_gain
                                jj += set_jokers[r0 + q]
                                if wild_on:  # its coloured jokers are in use, by colour
                                    for c in range(colours):
                                        nk += set_wild[r0 + q, c] << wild[c, 2]
                        if jj > jokers or (need_next[jj] > 0 and ns % w_kept_span < need_next[jj]):
                            continue
                        nk = (nk & ~j_bits) | (np.int64(jj) << J_SHIFT)
                        count = _put(data, count, slots, gen, nk, ns, i, subset)
                elif step <= colours:  # one colour at this number
                    c = step - 1
                    shift = PROFILE_BITS * c
                    n1 = (key >> shift) & 7
                    n2 = (key >> (shift + 3)) & 7
                    n3 = (key >> (shift + 6)) & 7
                    mask = (key >> MASK_SHIFT) & 0xFFFF
                    forced = table_count[v, c] - _held(slot_bits, mask, v, c)
                    # at least run_only of this number and colour go into runs, group_only
                    # into groups (a kept set holding one of them takes it with it)
                    run_only = kind_need[v, c, 0] - _held(kind_need[:, :, 1], mask, v, c)
                    group_only = kind_need[v, c, 2] - _held(kind_need[:, :, 3], mask, v, c)
                    free_j = 0 if wild_on else jokers - j  # plain jokers not in use
                    w_free = 0
                    if wild_on and wild[c, 3] > 0:
                        w_free = wild[c, 0] - ((key >> wild[c, 2]) & ((np.int64(1) << wild[c, 3]) - 1))
                    w_groups = (key >> w_field[0]) & w_mask
                    cleared = key & ~(np.int64(0x1FF) << shift)
                    r_left = (key >> G_SHIFT) & 15
                    g_most = (key >> (G_SHIFT + 4)) & 3
                    own = rack_count[v, c]
                    # the kept sets still holding tiles at v + 1 and v + 2 (a slot freed at v may
                    # hold another set from v + 1 on)
                    kept1 = mask & ~slot_free_after[v]
                    kept2 = kept1 & ~slot_free_after[v + 1] if v + 1 < values else 0
                    # jokers the other colours' runs of 1 and 2 will need (see owed below)
                    others = 0
                    for c2 in range(colours):
                        profile = key >> (PROFILE_BITS * c2)
                        m1 = profile & 7
                        m2 = (profile >> 3) & 7
                        if c2 != c and m1 + m2:
                            if c2 < c:  # done at v: tiles needed at v + 1 and v + 2
                                others += max(0, m1 + m2 - _free_tiles(tiles, slot_bits, kept1, v + 1, c2))
                                others += max(0, m1 - _free_tiles(tiles, slot_bits, kept2, v + 2, c2))
                            else:  # still to come at v: tiles needed at v and v + 1
                                others += max(0, m1 + m2 - _free_tiles(tiles, slot_bits, mask, v, c2))
                                others += max(0, m1 - _free_tiles(tiles, slot_bits, kept1, v + 1, c2))
                    if others > (jokers - j if wild_on else free_j):
                        continue
                    next1 = _free_tiles(tiles, slot_bits, kept1, v + 1, c)
                    next2 = _free_tiles(tiles, slot_bits, kept2, v + 2, c)
                    # a bound on the successors below: choices of x, i1, i2, e3, e3j, s
                    more = (own + spare_count[v, c] + 1) * (n1 + 1) * (n2 + 1) * (n3 + 1) * (n3 + 1)
                    more *= (forced + own + spare_count[v, c] + w_free + 1) * (w_free + 1)
                    if merge:
                        more *= jokers + 1
                    if _short_of_room(data, count, lo, slots, more):
                        data, slots, gen, dead = _room(data, count, lo, slots, gen, dead, more)
                    for xw in range((own if play_all else 0) * (w_free + 1), (own + spare_count[v, c] + 1) * (w_free + 1)):
                        x = xw // (w_free + 1)
                        w = xw % (w_free + 1)  # wild tiles of this colour at this number
                        a = forced + x + w
                        gain = sc + min(x, own) * tile_gain[v]
                        for i1 in range(min(n1, free_j) + 1):
                            for i2 in range(min(n2, free_j - i1) + 1):
                                for e3 in range(n3 + 1):
                                    for e3j in range(min(e3, free_j - i1 - i2) + 1):
                                        real = (n1 - i1) + (n2 - i2) + (e3 - e3j)
                                        if real > a:
                                            continue
                                        rem = a - real
                                        # starting a run while a 3+ run stops is never better
                                        # than letting that run go on with the tile
                                        s_hi = rem if e3 == n3 else 0
                                        m3 = n2 + e3
                                        if m3 > MAX_RUNS:
                                            continue
                                        jj = j + i1 + i2 + e3j + w
                                        if v >= span and rem > 0:
                                            continue  # past the numbers a wild only goes on a run
                                        for s in range(s_hi + 1):
                                            g = rem - s
                                            if g > group_cap[c] or g > a - run_only or g < group_only:
                                                continue
                                            # the wild tiles take run places first (the real
                                            # tiles then go to groups, which need them)
                                            wg = w - min(w, max(0, a - g - run_only))
                                            wg_all = w_groups + wg
                                            if wg_all > w_mask:
                                                continue
                                            # jokers that the runs of 1 and 2 now open will need:
                                            # a tile or a joker at the next number, a run of 1 at
                                            # the one after too
                                            owed = max(0, s + n1 - next1) + max(0, s - next2) + others
                                            if owed > jokers - jj:
                                                continue
                                            plain_left = 0 if wild_on else jokers - jj - owed
                                            nk = cleared | (np.int64(s | (n1 << 3) | (m3 << 6)) << shift)
                                            nk &= ~j_bits
                                            ch = x | i1 << 3 | i2 << 6 | e3 << 9 | e3j << 12 | s << 15 | w << 24
                                            if w:
                                                nk += np.int64(w) << wild[c, 2]
                                            if merge:  # the leftovers, with jg jokers, become groups
                                                nk &= closing
                                                g_all, g_max = r_left + g, max(g_most, g)
                                                for jg in range(plain_left + 1):
                                                    if need_next[jj + jg] > kept:
                                                        continue  # the next layer would drop it
                                                    if groups_feasible_real(g_all, g_max, jg, colours, wg_all):
                                                        nkj = nk | (np.int64(jj + jg) << J_SHIFT)
                                                        count = _put(data, count, slots, gen, nkj, gain, i,
                                                                     ch | jg << 18)
                                                continue
                                            g_all, g_max = r_left + g, max(g_most, g)
                                            if 3 * g_max > g_all + supply[v, c, g_max] + jokers - jj - owed:
                                                continue  # too few tiles and jokers left for groups
                                            if need_next[jj] > kept:
                                                continue
                                            nk |= np.int64(jj) << J_SHIFT
                                            grouped = g_all | (g_max << 4)
                                            nk = (nk & ~g_bits) | (np.int64(grouped) << G_SHIFT)
                                            nk |= np.int64(wg_all) << w_field[0]
                                            count = _put(data, count, slots, gen, nk, gain, i, ch)
                else:  # the leftovers of this number become groups
                    more = jokers - j + 1
                    if _short_of_room(data, count, lo, slots, more):
                        data, slots, gen, dead = _room(data, count, lo, slots, gen, dead, more)
                    r_left = (key >> G_SHIFT) & 15
                    g_most = (key >> (G_SHIFT + 4)) & 3
                    w_groups = (key >> w_field[0]) & w_mask
                    cleared = key & closing & ~j_bits
                    for jg in range((0 if wild_on else jokers - j) + 1):
                        if need_next[j + jg] > kept:
                            continue  # the next layer would drop it
                        if not groups_feasible_real(r_left, g_most, jg, colours, w_groups):
                            continue
                        nk = cleared | (np.int64(j + jg) << J_SHIFT)
                        count = _put(data, count, slots, gen, nk, sc, i, jg)
            if step == colours + 1 or merge:
                _prune_dominated(data, lo, count, slots, gen, colours, dom_start, dom_list, dead,
                                 table_jokers == 0 and rack_jokers == 0)
            if beam > 0 and count - lo > beam:
                rank = np.empty(count - lo, np.int64)
                for e in range(lo, count):
                    if dead[e]:
                        rank[e - lo] = -1
                    else:  # the score it might still reach: less the floor the bounds ask of it
                        je = (data[e, 0] >> J_SHIFT) & 7
                        hope = data[e, 1] - need_row[je] + BEAM_OFFSET
                        rank[e - lo] = hope * 64 + _tie_break(data[e, 0], colours)
                # the beam-th best rank, without sorting the layer: keep the ranks above it,
                # and of those equal to it as many as fit
                cut = -np.partition(-rank, beam - 1)[beam - 1]
                room = beam
                for e in range(lo, count):
                    if rank[e - lo] > cut:
                        room -= 1
                for e in range(lo, count):
                    r = rank[e - lo]
                    if r < cut or r == -1:
                        dead[e] = 1
                    elif r == cut:
                        if room > 0:
                            room -= 1
                        else:
                            dead[e] = 1
            prev_lo = lo
            prev_hi = count
            if count > row_budget:
                return -2, np.int64(0), data[:count], ran, np.full(jokers + 1, -1, np.int64)
    # the end: no run shorter than 3 left open, every table joker placed
    kept_by_jokers = np.full(jokers + 1, -1, np.int64)
    best = -1
    best_score = np.int64(-(2**62))
    for i in range(prev_lo, prev_hi):
        if dead[i]:
            continue
        key = data[i, 0]
        ok = True
        for c in range(colours):
            if (key >> (PROFILE_BITS * c)) & 0x3F:
                ok = False
        j = (key >> J_SHIFT) & 7
        if not ok or j < table_jokers:
            continue
        if wild_on:  # every table joker of each colour placed
            for c in range(colours):
                if wild[c, 3] > 0 and ((key >> wild[c, 2]) & ((np.int64(1) << wild[c, 3]) - 1)) < wild[c, 1]:
                    ok = False
            if not ok:
                continue
        sc = data[i, 1] + min(j - table_jokers, rack_jokers) * joker_gain
        kept = sc % w_kept_span
        if sc // w_primary < primary_floor or kept < kept_need[values, j]:
            continue
        kept_by_jokers[j] = max(kept_by_jokers[j], kept)
        if sc > best_score:
            best_score = sc
            best = i
    return best, best_score, data[:count], ran, kept_by_jokers


@njit(cache=True)
def tighten_kept_bounds(
    box,
    bound,
    starts,
    tail_table,
    tail_rack,
    tail_spares,
    tail_floor,
    play_all,
    rows_cap,
    budget,
    set_start,
    w_primary,
    gains_left,
):
    """The Russian doll search of dp.py's ``_tighten_kept_bounds``, compiled (a tail walk is
    often a few hundred states: called from Python, the call would cost as much as the walk).

    bound[v, f]: what the sets from number v on may keep with f jokers free, tightened in
    place. starts: the numbers where old sets start, last first; for the k-th, the relaxed
    tail's arrays tail_table[k], tail_rack[k], tail_spares[k] and its primary floor
    tail_floor[k]. Each tail walk may visit ``rows_cap`` states, all of them ``budget``. box,
    set_start, w_primary: as for :func:`solve_dp`; gains_left: its primary_left.

    Returns (0, or -1 if not even a tail reaches the floor with every joker, -2 if the walks
    outgrew the budget; the budget left).
    """
    values = box[0]
    pool = bound.shape[1] - 1
    # a tail is a relaxation: it need not ask which kind of set a kept joker's tile goes into
    no_kinds = np.zeros((values, box[1], 4), np.int64)
    # and plain jokers for coloured ones (a coloured joker's place is a plain joker's too)
    no_wild = np.zeros((box[1], 4), np.int64)
    no_field = np.zeros(2, np.int64)
    for k in range(starts.shape[0]):
        start = starts[k]
        here = set_start[start + 1] - set_start[start]  # old sets starting here
        top = bound[start]  # tightened in place
        for f in range(pool + 1):
            top[f] = min(top[f], bound[start + 1, f] + here)
        proven = np.zeros(pool + 1, np.bool_)
        for jokers in range(pool, -1, -1):
            if jokers < pool:
                top[jokers] = min(top[jokers], top[jokers + 1])  # fewer jokers never keep more
            if proven[jokers]:
                continue
            # one walk, at the floor ``top``: it proves the bound or, failing, the bound less
            # one (walking on to prove less cost more than the tighter bounds saved: on XP, late
            # game and long racks the whole solve took 6-8 % longer)
            # a state with j jokers in use may still keep bound[v, jokers - j] sets from v on
            need = np.empty((values + 1, jokers + 1), np.int64)
            for v in range(values + 1):
                for j in range(jokers + 1):
                    need[v, j] = top[jokers] - bound[v, jokers - j]
            best, _, rows, _, kept = solve_dp(
                box, tail_table[k], tail_rack[k], jokers, 0, set_start, w_primary, gains_left, need,
                tail_floor[k], min(budget, rows_cap), 0, start, tail_spares[k], 0, play_all, no_kinds,
                no_wild, no_field,
            )
            budget -= rows.shape[0]
            if budget <= 0:
                return -2, budget
            if best == -2:
                continue  # too big to tell quickly: the bound stays
            reached = -1
            for j in range(jokers + 1):  # one that keeps so many with fewer jokers tells too
                reached = max(reached, kept[j])
                if reached >= top[j]:
                    proven[j] = True
            if proven[jokers]:
                continue
            if top[jokers] > 0:
                top[jokers] -= 1  # no tail keeps ``top`` sets with so few jokers
            elif jokers == pool:
                return -1, budget  # not even the tail reaches the floor
        below = starts[k + 1] if k + 1 < starts.shape[0] else -1
        for v in range(start - 1, below, -1):
            for f in range(pool + 1):
                bound[v, f] = min(bound[v, f], top[f])
    return 0, budget
