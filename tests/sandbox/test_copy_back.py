"""Copying a call's mutations back into the judge's objects (`values.update_in_place`): identity of
nested containers kept, every changed value taken, whatever container holds it."""

from coderl.sandbox.server.common.values import update_in_place


def test_nested_containers_keep_their_identity():
    row = [0, 0]
    grid = [row, [0, 0]]
    update_in_place(grid, [[1, 0], [0, 2], [3]])
    assert grid == [[1, 0], [0, 2], [3]] and grid[0] is row


def test_a_tuple_item_whose_numbers_changed_is_replaced():
    # A list of pairs where the program rewrote a pair: the tuple cannot change in place, so it is replaced
    # (an in-place update of its containers alone lost the new number).
    pairs = [(1, [2]), (3, [4])]
    update_in_place(pairs, [(5, [2]), (3, [4, 4])])
    assert pairs == [(5, [2]), (3, [4, 4])]
    table = {"a": (1, "x"), "b": (2, [0])}
    inner = table["b"][1]
    update_in_place(table, {"a": (9, "x"), "b": (2, [0, 1])})
    assert table == {"a": (9, "x"), "b": (2, [0, 1])} and table["b"][1] is inner


def test_a_top_level_tuple_gets_its_containers_updated():
    arg = ([], [0])
    update_in_place(arg, ([7], [0, 7]))
    assert arg == ([7], [0, 7])


def test_an_object_dict_keeps_attribute_identity_and_drops_removed_ones():
    attrs = {"items": [], "gone": 1, "n": 0}
    items = attrs["items"]
    update_in_place(attrs, {"items": [1], "n": 2})
    assert attrs == {"items": [1], "n": 2} and attrs["items"] is items
