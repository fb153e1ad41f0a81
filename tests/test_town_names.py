"""Town names in text: whole words, the longest name where names overlap, found word by word."""

from __future__ import annotations

from guide_tui.retrieval import TownNames

REGION = TownNames(["Kestrelford", "Upper Kestrelford Magna", "Kestrelford Magna", "Halden Bay", "Halden"])


def test_a_name_inside_a_longer_name_resolves_to_the_longer_one() -> None:
    assert REGION.found_in("The fair at Upper Kestrelford Magna is in May.") == {"Upper Kestrelford Magna"}
    assert REGION.found_in("Trains from kestrelford magna's station") == {"Kestrelford Magna"}
    assert REGION.found_in("Kestrelford and Halden Bay Heath") == {"Kestrelford", "Halden Bay"}


def test_names_are_whole_words_and_take_their_possessive() -> None:
    assert REGION.found_in("Kestrelfordshire and Haldenbay") == set()
    assert REGION.masked("Upper Kestrelford Magna's bakery, near Halden.") == "  bakery, near  ."
    assert REGION.masked("Kestrelford'sx") == " 'sx"


def test_thousands_of_towns_sharing_words() -> None:
    names = [f"Upper {n} Magna" for n in range(20_000)] + [f"{n}" for n in range(20_000)]
    region = TownNames(names)
    assert region.found_in("from Upper 17 Magna to 17, then Upper 18") == {"Upper 17 Magna", "17", "18"}
    assert region.found_in("nothing here") == set()
