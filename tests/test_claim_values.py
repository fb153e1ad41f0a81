"""Values read with their units (claim_values) and clauses read for polarity (claim_polarity)."""

from __future__ import annotations

import pytest

from guide_tui.claim_polarity import polarity, stance
from guide_tui.claim_values import values_in, with_rest


def only(text: str):
    (value,) = values_in(text)
    return value


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("sells out by 11 in the morning", "sells out by 11am"),
        ("until 19:00", "until 7pm"),
        ("until 00:00", "until midnight"),
        ("till half past ten", "until 10:30pm"),
        ("from 6pm", "from 6"),  # a bare hour in the guide can be either
        ("costs nothing", "is free"),
        ("for £2", "costs £2"),
        ("for a small fee", "costs £2"),
        ("an hour and a half", "90 minutes"),
        ("fifty minutes", "50 minutes"),
        ("thirty-five minutes", "35 minutes"),
        ("every quarter of an hour", "every 15 minutes"),
        ("every half hour", "every 30 minutes"),
        ("about 10 km", "six miles"),
        ("the 1300s", "a 14th century building"),
        ("15th-century", "since the 1400s"),
        ("on weekdays", "Monday to Friday"),
        ("on Mon–Fri", "on weekdays"),
        ("every day apart from Tuesday", "every day except Tuesdays"),
        ("from November to February", "from November to February"),
        ("in July", "in summer"),
        ("in summer", "in July and August"),  # a season in a claim: overlapping is enough
        ("forty cars", "40 cars"),
        ("for two pounds", "for £2"),
        ("just under half an hour", "25 minutes"),  # a hedged value is not exact
        ("late spring", "in May"),
        ("half a dozen times", "six times"),
        ("a hundred and eighty thousand", "180,000"),
        ("two hundred and fifty metres", "250 metres"),
        ("cleared by seven", "cleared by 7am"),  # an hour in words after "by"
        ("a walk of two and a half hours", "150 minutes"),  # not "a half hour"
        ("one and a half hours", "an hour and a half"),
        ("three quarters of an hour", "45 minutes"),
        ("half a mile", "800 metres"),
        ("a quarter of a kilometre", "250 m"),
        ("a couple of cafés", "two cafés"),
        ("a fortnight", "fourteen days"),
        ("shuts at nine pm", "shuts at 21:00"),
        ("back by half eight", "back by 8:30"),  # "half eight" is half past eight
        ("at ten o'clock", "at 10am"),
        ("opens at ten thirty am", "opens at 10:30am"),
        ("1 hr 10 mins", "70 minutes"),
        ("two hours and fifteen minutes", "135 minutes"),
        ("six and a half kilometres", "four miles"),
        ("late at weekends", "late on Fridays and Saturdays"),  # a weekend's nights
        ("twice that", "it doubles"),
        ("in October", "from September to October"),  # "October" holds "to" but is no range
        ("in Sept-Oct", "from September to October"),
        ("every day but Wednesday", "every day except Wednesdays"),
        ("about an hour", "55 minutes"),  # "about" rounds, within a tenth
        ("roughly 3 km", "two miles"),
        ("a 5km loop", "three miles"),  # a unit written against its number
        ("takes 10mins", "ten minutes"),
        ("shuts at 08:30", "shuts at 8:30am"),
        ("a city of 95 thousand", "a city of 95,000"),
        ("two-thirds of an hour", "40 minutes"),
        ("about 40 000 people", "about 40,000 people"),  # thousands grouped by a space
        ("costs about 50% of the seafront price", "costs roughly half the seafront price"),  # a percentage is a proportion
        ("costs 33 per cent less", "costs roughly a third less"),  # rounded to the nearest percent
        ("twice as much", "about double those on the next street"),  # "double" before a demonstrative
        ("until half ten the rest of the week", "until 10:30pm"),  # "half ten" followed by "the"
        ("a town of 12k people", "a population of 12,000"),  # thousands as "k"
        ("a walk of under half an hour", "a 25-minute walk"),  # at most, a little under
        ("except on Tuesdays, open daily", "open every day except Tuesdays"),  # an exception before the days it takes from
        ("apart from Fridays and Saturdays", "every day except Fridays and Saturdays"),  # with nothing to take from: the week
        ("on nights other than Friday", "every day except Fridays"),
        ("prices go up twofold", "hotels double their prices"),
        ("the walk takes an hour", "a 60-minute walk"),  # "takes an hour": a verb ending in s, not "trains a day"
        ("closed in nineteen sixty-three", "closed in 1963"),  # a year said as words
        ("built in the eighteen nineties", "built in the 1890s"),
        ("since the fourteen hundreds", "since the 1400s"),
    ],
)
def test_a_value_restated_another_way_matches(claim, source):
    assert only(claim).matches(only(source))


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("sells out by 11pm", "sells out by 11am"),  # the same hour turned round
        ("at 6 in the evening", "at 6am"),
        ("until 12pm", "until midnight"),
        ("close at 5pm", "open until dusk"),
        ("serve at any hour of the night", "serve until midnight"),  # a time with no end is no closing time
        ("free", "for £2"),
        ("for £5", "for £2"),
        ("22 minutes", "22 miles"),
        ("six miles", "four miles"),
        ("every half hour", "on the hour"),
        ("in 1968", "in 1963"),
        ("in nineteen sixty-eight", "in 1963"),
        ("in the nineteen sixties", "in 1953"),
        ("since the 1200s", "since the 1400s"),
        ("every day of the week", "from Thursday to Sunday"),
        ("every day, Tuesdays included", "every day except Tuesdays"),
        ("from Thursday to Saturday", "from Thursday to Sunday"),  # a range states both ends
        ("from April to October", "from March to November"),
        ("all year round", "between Easter and September"),
        ("on Sundays", "on weekdays"),
        ("three pounds", "£2"),
        ("just under half an hour", "40 minutes"),
        ("in early spring", "in late spring"),
        ("an extra fourteen minutes", "add four minutes"),  # "fourteen" is not "four" and "teen"
        ("three quarters of an hour", "15 minutes"),
        ("half a mile", "two miles"),
        ("a couple of cafés", "three cafés"),
        ("shuts at nine pm", "shuts at 9am"),
        ("back by half eight", "back by 8pm"),
        ("1 hr 10 mins", "an hour"),
        ("on weekdays", "on Fridays and Saturdays"),
        ("apart from Fridays and Saturdays", "on Fridays and Saturdays"),
        ("in Sept-Oct", "from September to November"),
        ("every day but Wednesday", "every day"),
        ("about an hour", "45 minutes"),
        ("shuts at 08:30", "shuts at 8:30pm"),  # a leading zero is the 24-hour clock's morning
        ("costs 50% less", "costs roughly a third less"),
        ("less than 40 minutes", "50 minutes"),
        ("about 60 000 people", "about 40,000 people"),
    ],
)
def test_a_changed_value_does_not_match(claim, source):
    assert not only(claim).matches(only(source))


def test_values_keep_their_kind_and_every_number_is_read_once():
    kinds = [(v.kind, v.text) for v in values_in("The coast road is slow: 22 miles take 40 minutes, with four buses a day.")]
    assert kinds == [("distance", "22 miles"), ("duration", "40 minutes"), ("count", "four")]
    assert [v.text for v in values_in("Food from 12 to 2 and again from 6 to 8:30.")] == ["12", "2", "6", "8:30"]
    assert [v.text for v in values_in("Food from noon to three and again from five to nine.")] == ["noon", "three", "five", "nine"]
    assert [v.kind for v in values_in("From five to nine walkers use it.")] == ["count", "count"]  # counts, not hours
    # a range in words ending in a spoken time: both ends are hours
    assert [(v.kind, v.text) for v in values_in("Dinner from six until half past eight.")] == [("clock", "six"), ("clock", "half past eight")]
    assert [(v.kind, v.text) for v in values_in("Dinner 6 till half eight.")] == [("clock", "6"), ("clock", "half eight")]
    # an hour in words, after "and" rather than "from", before a spoken time
    said = values_in("Food from twelve till two and six till half eight.")
    assert [(v.kind, v.text) for v in said] == [("clock", "twelve"), ("clock", "two"), ("clock", "six"), ("clock", "half eight")]
    assert values_in("Trains run on Fridays and Saturdays.")[0].readings == (frozenset({4, 5}),)
    # an hour in words before "and" and a verb is a time; before "and" and a number it is not
    assert [(v.kind, v.text) for v in values_in("It opens at nine and shuts at five.")] == [("clock", "nine"), ("clock", "five")]
    assert [(v.kind, v.text) for v in values_in("The train was late by two and a half hours.")] == [("duration", "two and a half hours")]
    # a year said as words is one year, but two counts before a hyphened noun are no year
    assert [(v.kind, v.text) for v in values_in("The line closed in nineteen sixty-three.")] == [("year", "nineteen sixty-three")]
    assert [v.kind for v in values_in("There are nineteen sixty-seat buses.")] == ["count", "count"]


def test_words_that_look_like_days_or_numbers_are_not_values():
    assert values_in("The sun sat on the hill.") == []  # "sun" and "sat" are days only as "Sat–Sun"
    assert values_in("It is the only one left, one street back.") == []
    assert values_in("A day ticket is cheaper.") == []  # "a day" describes the ticket, it lasts no day
    assert [v.kind for v in values_in("Prices fall by about half.")] == ["ratio"]  # "fall" the verb, no season
    assert only("Rain comes in the fall.").readings == (frozenset({9, 10, 11}),)
    assert [v.kind for v in values_in("Walk to one end.")] == []  # "at one", "to one" are no hour
    assert [v.text for v in values_in("Trains run on weekdays but Sundays are quiet.")] == ["weekdays", "Sundays"]  # "but" excepts only after "every day"
    assert values_in("Once the students go home, book a double room.") == []  # "once" the conjunction, "double" the adjective
    assert [v.text for v in values_in("Fares double in August, and the ferry runs once a day.")] == ["double", "August", "once"]


def test_daily_after_a_count_is_a_rate_not_every_day():
    assert [(v.kind, v.text) for v in values_in("There are seven trains daily, and the bus runs four times daily.")] == [("count", "seven"), ("count", "four")]
    assert [(v.kind, v.text) for v in values_in("The tearoom is open 10 to 4 daily.")][-1] == ("day", "daily")
    assert [(v.kind, v.text) for v in values_in("Monday to Friday there are four daily buses.")] == [("day", "Monday to Friday"), ("count", "four")]


def test_all_day_between_closing_and_a_day_is_the_whole_day_not_a_time():
    assert [(v.kind, v.text) for v in values_in("Many kitchens close all day Sunday.")] == [("day", "Sunday")]
    assert [(v.kind, v.text) for v in values_in("Food is served all day on Saturdays.")] == [("clock", "all day"), ("day", "Saturdays")]


def test_a_count_keeps_what_it_counts():
    assert [(v.text, v.counted) for v in values_in("A bakery, two cafés and four genuinely good pubs.")] == [("two", "cafés"), ("four", "good")]
    assert [(v.text, v.counted) for v in values_in("It passes three of the four farms.")] == [("three", "farms"), ("four", "farms")]  # a part of a whole


@pytest.mark.parametrize(
    ("clause", "negative"),
    [
        ("No buses run to Kestrelford on Sundays", True),
        ("Taxis do not cruise the streets", True),
        ("Concert tickets rarely sell out", True),
        ("Buses run on Sundays", False),
        ("Every part of the town is no more than ten minutes on foot", False),  # a bound, not a denial
        ("Nowhere in the town is more than ten minutes' walk away", False),
        ("The lighthouse isn't open to the public", False),  # the negator turned "open" round instead
        ("No, the line closed in 1963", False),  # an answering "No,"
        ("Not every place takes cards", False),  # some do: a quantifier, not a denial
        ("Prices match Marchwood rather than village levels", True),
        ("Prices are closer to Marchwood's than to a village's", True),  # the far side of a comparison
        ("The walk takes more than two hours", False),
        ("A reservation is unnecessary outside the summer", True),  # a prefix denies its word
        ("The upper floor is inaccessible to wheelchairs", True),
        ("The farm lies inland from the coast", False),  # "in" + "land" denies nothing
        ("Arrive early unless you have booked", False),
        ("The path is unsafe after rain", False),  # a side of a pair, read as the side
        ("After heavy snow the lane is impassable", True),  # "im" + "pass" + "able"
        ("There is no step-free way up to the gallery", True),  # denies the way, not only its side
        ("The gallery is not step-free", False),
        ("The island has no full hospital", True),  # "full" before a noun is "complete", no side of busy
        ("The village has no bus service inside its streets", True),  # "no" denies the service, not the preposition "inside"
        ("No village is within walking distance of another", False),  # a side after the verb: turned round instead
        ("Unfortunately there's no ferry to the island", True),  # a comment on the clause: "un" + "fortunately" denies nothing
        ("Unsurprisingly the ferry runs all summer", False),
        ("Parking is free for two hours, an unusually generous arrangement", False),  # "unusually": very, no denial
        ("Drivers pay nothing to park for two hours in town", False),  # "nothing" is the side's own wording
        ("There is no charge to enter the museum", False),
        ("Buses skip the village on Sundays", True),
    ],
)
def test_denials_are_read_from_the_negators(clause, negative):
    assert polarity(clause).negative is negative


@pytest.mark.parametrize(
    ("clause", "concept", "sides"),
    [
        ("The lighthouse is closed to the public", "open", {-1}),
        ("The lighthouse isn't open to the public", "open", {-1}),
        ("The chapel is never locked", "open", {1}),
        ("Halden Bay's lanes are step-free", "slope", {1}),
        ("linked by stepped lanes", "slope", {-1}),
        ("a 12-minute uphill walk", "slope", {-1}),
        ("the busiest months", "busy", {1}),
        ("quiet enough to feel dull", "busy", {-1}),
        ("food costs about a third less", "price", {1}),
        ("the fare costs more than a taxi", "price", {-1}),
        ("the closures are only advisory", "enforced", {-1}),  # "only", limited to nothing, is "merely"
        ("parking is only allowed in the village", "allowed", {1, -1}),  # exclusive: allowed there, banned elsewhere
        ("the kiosk is open on Saturdays only", "open", {1, -1}),  # "X only" is exclusive too
        ("the station car park is never full", "busy", {-1}),
        ("by noon the beach car park is full", "busy", {1}),
        ("the car park is free", "charge", {1}),
        ("parking is pay-and-display", "charge", {-1}),
        ("there is no charge to go in", "charge", {1}),
        ("the pier is open and free of charge", "charge", {1}),
        ("the pub is near the station", "distance", {1}),
        ("the two districts are adjacent", "distance", {1}),
        ("the districts are spread apart rather than side by side", "distance", {-1}),
        ("it is a long way from town", "distance", {-1}),
        ("two miles of soft sand", "ground", {-1}),
        ("winters are mild", "temperature", {1}),
        ("book a week ahead", "booking", {1}),
        ("you can turn up on the day", "booking", {-1}),
        ("the machinery is switched off", "running", {-1}),
        ("prices rise in August", "amount", {1}),
        ("conference weeks double their prices", "price", {-1}),  # the verb before "prices"
        ("prices go up in summer", "price", {-1}),  # a phrasal verb of price
        ("outside the season prices come down", "price", {1}),
        ("the car park nearly always has space", "busy", {-1}),
        ("heading southwards along the cliffs", "direction", {-1}),
        ("the covered market", "indoors", {1}),
        ("an open-air market", "indoors", {-1}),
        ("closed for two hours either side of low water", "tide", {1}),
        ("closed for two hours before and after high water", "tide", {-1}),
        ("skip the expensive metered parking", "price", {-1}),  # a bidding to go without it, no denial of what it is
        ("in August the town is at its liveliest", "busy", {1}),
        ("the market shrinks a great deal in winter", "size", {-1}),  # against "at its biggest"
        ("the villages sit close together", "distance", {1}),
        ("the villages are two to four miles apart", "distance", {-1}),
        ("you can park wherever you like on the headland", "allowed", {1}),  # against "banned elsewhere"
        ("the observatory welcomes day visitors", "allowed", {1}),
        ("the beach is best when the tide's low", "tide", {1}),
        ("the climb up to the square is gentler than it looks", "slope", {1}),  # the thing named yields to what is said of it
        ("the climb is hard work", "slope", {-1}),  # but names a side when nothing else is said of the slope
        ("the hard sand is easy going", "ease", {1, -1}),  # "the hard sand": the word describes the thing, not names it
    ],
)
def test_a_clause_takes_a_side_of_an_opposite_pair(clause, concept, sides):
    assert polarity(clause).sides[concept] == frozenset(sides)


@pytest.mark.parametrize(
    ("text", "sides"),
    [
        ("My knees aren't great these days. Which walks are gentle?", {"good": {-1}, "slope": {1}}),  # the denial stays in its sentence
        ("I can't manage steps - which towns are simplest for me?", {"slope": {1}, "ease": {1}}),  # "can't" denies the steps
        ("Any easy, flat walks that aren't too strenuous?", {"ease": {1}, "slope": {1}}),
        ("Is it busy or quiet in May?", {}),  # both sides of a pair: no side
        ("Which town is the least hassle with a pushchair?", {"ease": {1}}),  # the least of one side asks for the other
        ("A walk of at least six miles, and hard going", {"ease": {-1}}),  # "at least" is a bound
        ("a base with as little hassle as possible", {"ease": {1}}),
        ("it gets a little busy", {"busy": {1}, "size": {-1}}),  # "a little" is some
        ("Which is the toughest walk?", {"ease": {-1}}),
    ],
)
def test_a_text_takes_sides_clause_by_clause(text, sides):
    assert stance(text) == {concept: frozenset(taken) for concept, taken in sides.items()}


@pytest.mark.parametrize(
    ("clause", "concept"),
    [
        ("feel free to ask at the bar", "charge"),
        ("a step-free route", "charge"),
        ("as far as the weir", "distance"),
        ("Shingle is far harder going", "distance"),  # "far" before a comparative only intensifies
        ("close to 40,000 people", "distance"),
        ("nowhere is more than ten minutes away", "amount"),  # a bound the values say
        ("outside July and August prices are low", "indoors"),  # "outside" a season is "except in"
        ("an open-air market", "open"),
        ("go straight ahead at the bridge", "booking"),
        ("buses running every hour", "running"),
        ("it's best to check the dates before you book", "good"),  # advice, not the best of something
    ],
)
def test_words_that_only_look_like_a_side_take_none(clause, concept):
    assert concept not in polarity(clause).sides


def test_only_before_the_days_limits_them_a_verb_between_or_not():
    assert only("Buses only run from Monday to Saturday.").only and only("It is only open at weekends.").only
    assert not only("Buses run on Sundays.").only
    assert [v.only for v in values_in("Only two buses on Sundays.")] == [False, False]  # "only" counts the buses


def test_the_one_day_is_the_only_day_not_a_day_long():
    assert [(v.kind, v.text) for v in values_in("Tuesday is the one day of the week it's closed")] == [("day", "Tuesday")]
    assert [(v.kind, v.text) for v in values_in("The walk takes one day")] == [("duration", "one day")]


def test_other_nights_are_the_rest_of_the_week_and_a_denial_makes_except_name_the_only_days():
    said = "On Fridays and Saturdays kitchens serve until midnight, and on other nights until 10:30pm."
    assert [v.readings[0] for v in with_rest(values_in(said), said) if v.kind == "day"] == [frozenset({4, 5}), frozenset({0, 1, 2, 3, 6})]
    assert only("no ticket office except on weekdays").readings[0] == frozenset(range(5))  # "no ... except": only then
    assert only("open except on weekdays").readings[0] == frozenset({5, 6})
    assert only("food at lunch, but not on Mondays").readings[0] == frozenset({0})  # the days denied, as "closed on Mondays"


def test_a_places_people_are_one_thing_counted_however_they_are_worded():
    from guide_tui.claims import same_value

    village = values_in("Elder Ness holds a village of 300, a lighthouse and an observatory.")[0]
    assert village.counted == "people"
    assert same_value(only("has three hundred residents"), village)
    assert same_value(only("a population of about 40,000"), only("40,000 inhabitants"))
    assert not same_value(only("three hundred houses"), village)
