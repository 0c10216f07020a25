"""Values with a time zone, ChainMaps of ChainMaps and numpy structured arrays cross the channel as themselves
(`coderl/sandbox/server/common/values.py`).  Before (at 86a70e8) a zone's offset went as a bare float, which the receiver's
strict decoder refused: a correct program returning an aware datetime was judged `protocol:bad_message` (reward 0,
named as tampering), and one receiving one got an AttributeError; a ChainMap among a ChainMap's maps and a
structured dtype broke the protocol the same way.  The corpus holds one program of each
(`tests/sandbox/corpus/legitimate.py`)."""

import datetime
import zoneinfo
from collections import ChainMap

import pytest

from coderl.sandbox.server.common import values

UTC = datetime.timezone.utc
IST = datetime.timezone(datetime.timedelta(hours=5, minutes=30), "IST")
ODD = datetime.timezone(datetime.timedelta(hours=-3, seconds=-7, microseconds=-11))


def cross(value):
    """`value` encoded as either side sends it, through its JSON text, and decoded as the other side reads it."""
    import json

    encoded = json.loads(values.text(values.walk(value, values.encode_node)))
    return values.walk(encoded, values.decode_node)


def _zones():
    zones = [UTC, IST, ODD, datetime.timezone(datetime.timedelta(hours=14))]
    for key in ("Europe/Paris", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe"):
        try:
            zones.append(zoneinfo.ZoneInfo(key))
        except zoneinfo.ZoneInfoNotFoundError:  # no time zone data on this machine
            pass
    return zones


@pytest.mark.parametrize("tz", _zones(), ids=str)
def test_an_aware_datetime_crosses_with_its_instant_offset_name_and_zone(tz):
    for moment in (datetime.datetime(2024, 1, 15, 9, 30, 5, 123), datetime.datetime(2024, 7, 1, 23, 59)):
        value = moment.replace(tzinfo=tz)
        got = cross(value)
        assert got == value and got.utcoffset() == value.utcoffset() and got.tzname() == value.tzname()
        assert got.tzinfo == value.tzinfo and repr(got) == repr(value)
        later = datetime.timedelta(days=120)  # wall-clock arithmetic in the zone: the zone itself, not its offset
        assert (got + later).utcoffset() == (value + later).utcoffset()
    assert cross(datetime.datetime(2024, 1, 1, tzinfo=UTC)).tzinfo is UTC


def test_the_repeated_hour_crosses_with_its_fold():
    """Found by a review: without `fold`, 01:30 of the second pass through New York's repeated hour came back as a
    fixed offset, unequal to itself."""
    try:
        zone = zoneinfo.ZoneInfo("America/New_York")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no time zone data on this machine")
    for fold in (0, 1):
        value = datetime.datetime(2024, 11, 3, 1, 30, fold=fold, tzinfo=zone)
        got = cross(value)
        assert got == value and got.fold == fold and got.tzinfo is zone and got.utcoffset() == value.utcoffset()
    assert cross(datetime.time(1, 30, fold=1)).fold == 1
    with pytest.raises(ValueError):
        values.walk({"$v": ["datetime", [2024, 1, 1, 0, 0, 0, 0], None, 2]}, values.decode_node)


def test_an_aware_time_and_naive_values_cross_as_they_were():
    for value in (datetime.time(9, 0, tzinfo=IST), datetime.time(1, 2, 3, 4, tzinfo=UTC), datetime.time(5),
                  datetime.datetime(2020, 2, 29, 1, 2), datetime.date(1, 1, 1)):
        got = cross(value)
        assert got == value and repr(got) == repr(value) and type(got) is type(value)


def test_a_zone_key_that_does_not_load_or_gives_another_offset_crosses_as_the_fixed_offset():
    body = values.walk(datetime.datetime(2024, 7, 1, 12, tzinfo=zoneinfo.ZoneInfo("UTC")), values.encode_node)
    body["$v"][2][2] = "Nowhere/Atlantis"
    got = values.walk(body, values.decode_node)
    assert got.utcoffset() == datetime.timedelta(0) and got.tzinfo == UTC
    body["$v"][2][2] = "Asia/Tokyo"  # loads, but gives +9 h where +0 was sent: the instant sent wins
    assert values.walk(body, values.decode_node).utcoffset() == datetime.timedelta(0)


@pytest.mark.parametrize("zone", [
    [1.5, None, None],  # an offset that is no timedelta (the old bare float)
    [{"$v": ["timedelta", 0, 0, 0]}, 7, None],  # a name that is no string
    [{"$v": ["timedelta", 0, 0, 0]}, "x" * 101, None],
    [{"$v": ["timedelta", 0, 0, 0]}, None, "../../etc/passwd"],  # a key no zone has
    [{"$v": ["timedelta", 0, 0, 0]}, None, "/etc/localtime"],
    [{"$v": ["timedelta", 0, 0, 0]}, None, 5],
    [{"$v": ["timedelta", 1, 0, 0]}, None, None],  # a day: no UTC offset is that large
    [{"$v": ["timedelta", 0, 0, 0]}, None],
])
def test_a_malformed_zone_is_refused(zone):
    with pytest.raises((ValueError, TypeError)):
        values.walk({"$v": ["datetime", [2024, 1, 1, 0, 0, 0, 0], zone]}, values.decode_node)


def test_a_chainmap_among_a_chainmaps_maps_crosses():
    from collections import UserDict

    value = ChainMap({"s": 1}, ChainMap({"u": 2}, {"d": 3, "u": 0}), UserDict(z=4))
    got = cross(value)
    assert got == value and type(got.maps[1]) is ChainMap and got["u"] == 2 and dict(got) == dict(value)
    assert type(got.maps[2]) is UserDict
    with pytest.raises(ValueError):
        values.walk({"$v": ["ChainMap", [[1, 2]]]}, values.decode_node)


def test_a_structured_array_crosses_with_its_fields():
    numpy = pytest.importorskip("numpy")
    plain = numpy.arange(6, dtype="int16").reshape(2, 3)
    records = numpy.array([("ann", 1.5, (1, 2)), ("bo", 2.0, (3, 4))],
                          dtype=[("name", "U10"), ("score", "f8"), ("xy", "i4", (2,))])
    nested = numpy.zeros(2, dtype=[("p", [("x", "f4"), ("y", "f4")]), ("n", "i8")])
    aligned = numpy.array([(1, 2)], dtype=numpy.dtype([("a", "u1"), ("b", "i4")], align=True))  # padding between
    view = numpy.array([(1, 2, 3.5)], dtype=[("a", "u1"), ("b", "i4"), ("c", "f8")])[["a", "c"]]  # a gap
    for value in (plain, records, nested, aligned, view):
        got = cross(value)
        assert got.dtype == value.dtype and got.shape == value.shape
        assert repr(got) == repr(value) and got.dtype.itemsize == value.dtype.itemsize
