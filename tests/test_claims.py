"""The claim check on real retrievals from the bundled index: what it supports, what it flags."""

from __future__ import annotations

import dataclasses

import pytest

from guide_tui.answers import REFUSAL
from guide_tui.chunking import sentences
from guide_tui.claim_polarity import polarity
from guide_tui.claim_values import values_in
from guide_tui.claims import DEFAULT_SETTINGS, answer_sentences, canonical, check_claims, cited_files, is_refusal

PUBS = "When do the pubs in Kestrelford serve food?"
BUS = "How do I get to Kestrelford by bus?"
SIGHTS = "What is there to see in Kestrelford?"

# Paraphrases a model might write, each with a fact of the guides; none should be flagged.
SUPPORTED = [
    (PUBS, "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_kestrelford.md]."),
    (PUBS, "Kestrelford's pubs serve lunch from noon until 2pm and dinner from 6pm to 8:30pm."),
    (PUBS, "Outside those hours there is nowhere in Kestrelford to get a meal [guide_kestrelford.md]."),
    (PUBS, "The bakery sells out by 11am, so go early."),
    (BUS, "There is no train station in Kestrelford, since the line closed in 1963 [guide_kestrelford.md]."),
    (BUS, "Buses leave Brightwater roughly hourly on weekdays and every two hours on Saturdays [guide_kestrelford.md]."),
    (BUS, "You cannot get a bus to Kestrelford on a Sunday."),
    (BUS, "Unfortunately there's no bus service to Kestrelford on a Sunday [guide_kestrelford.md]."),
    (BUS, "Buses to Kestrelford run only from Monday to Saturday [guide_kestrelford.md]."),  # "only": no Sunday bus
    ("How big is Marchwood?", "Marchwood has a population of a hundred and eighty thousand [guide_marchwood.md]."),  # a bare number
    ("Is September a good month to visit?", "September is another great time to come: it is warm, quiet and everything is still open [guide_seasons.md]."),
    (BUS, "Driving from Brightwater takes 55 minutes."),
    (BUS, "The last stretch is single-track road with passing places."),
    (SIGHTS, "You can climb the church tower for a small fee."),
    (SIGHTS, "The walk along the old railway line is six miles long."),
    (SIGHTS, "The market on the square is the main attraction and has run continuously for centuries."),
    # two source sentences merged into one claim
    (BUS, "Buses run hourly on weekdays, every two hours on Saturdays and not at all on Sundays, and the drive takes 55 minutes."),
    (BUS, "The railway closed in 1963 and the drive from Brightwater takes 55 minutes."),
]

# Claims the guides do not make: a wrong number, a name or day they never mention, or nothing like any sentence.
INVENTED = [
    (PUBS, "The pubs also serve a Sunday roast until 4pm [guide_kestrelford.md]."),
    (PUBS, "The bakery sells out by 10am."),
    (PUBS, "The bakery is open until 6pm."),  # 6 is in the chunk, but only in the pubs' hours
    (PUBS, "Vegetarian dishes are available at every pub."),
    (PUBS, "Live music plays in the pubs on Friday nights."),
    (PUBS, "Food is served all day at the cafés."),
    (BUS, "Buses run every 30 minutes from Brightwater."),
    (BUS, "A bus runs from Marchwood twice a day."),
    (SIGHTS, "The bakery is famous for its sourdough."),
    (SIGHTS, "The church tower offers great views over the countryside."),
    (SIGHTS, "The trackbed walk is flat and suitable for wheelchairs."),
    (SIGHTS, "Guided tours of the town run in summer."),
    ("How big is Marchwood?", "Marchwood has a population of two hundred thousand [guide_marchwood.md]."),  # a bare number, not the guide's
    # a value's dimension named beside it adds nothing, but the things passed on the way are invented
    ("Is it hard to cycle into Corry Vale?", "The road climbs 400 metres of height in its first four miles, past a petrol station and a roadside café."),
]


@pytest.fixture(scope="module")
def hits_for(retriever):
    cache: dict[str, list] = {}

    def hits(question: str):
        if question not in cache:
            cache[question] = retriever.retrieve(question).within_cutoff
        return cache[question]

    return hits


@pytest.mark.parametrize(("question", "claim"), SUPPORTED)
def test_faithful_paraphrase_is_supported_and_quoted(hits_for, bundled_index, question, claim):
    check = check_claims(claim, hits_for(question), bundled_index.embedder)
    assert check.unsupported == []
    (citation,) = check.citations
    chunk = next(h.chunk for h in hits_for(question) if h.chunk.chunk_id == citation.chunk_id)
    assert citation.quote in sentences(chunk.text)
    assert (citation.file, citation.section) == (chunk.file, chunk.section)


@pytest.mark.parametrize(("question", "claim"), INVENTED)
def test_invented_claim_is_unsupported(hits_for, bundled_index, question, claim):
    check = check_claims(claim, hits_for(question), bundled_index.embedder)
    assert check.unsupported == [claim]
    assert check.citations == []



@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("The cathedral is a small 14th century building.", "The cathedral is a small 1300s building."),  # a century and its hundreds
        ("A city of 180,000 people.", "A city of a hundred and eighty thousand people."),
        ("Entry costs nothing.", "Entry free."),
        ("The coast road covers 22 mi.", "The coast road covers 22 miles."),  # "mi" for miles
    ],
)
def test_a_sentence_is_compared_with_its_values_written_one_way(one, other):
    assert canonical(one, values_in(one)) == canonical(other, values_in(other))


def test_only_the_invented_sentence_is_flagged(hits_for, bundled_index):
    answer = (
        "Kestrelford has a bakery, two cafés and four pubs [guide_kestrelford.md]. "
        "The bakery is open until 6pm [guide_kestrelford.md]. "
        "Outside the pub serving times there is nowhere in Kestrelford to get a meal [guide_kestrelford.md]."
    )
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.unsupported == ["The bakery is open until 6pm [guide_kestrelford.md]."]
    assert [c.chunk_id for c in check.citations] == ["guide_kestrelford.md#2"]


def test_a_citation_limits_support_to_the_cited_file(hits_for, bundled_index):
    files = {h.chunk.file for h in hits_for(PUBS)}
    assert {"guide_kestrelford.md", "guide_eating.md"} <= files
    fact = "Kestrelford has a bakery, two cafés and four pubs"  # only guide_kestrelford.md says so
    assert check_claims(f"{fact} [guide_kestrelford.md].", hits_for(PUBS), bundled_index.embedder).unsupported == []
    wrong = f"{fact} [guide_eating.md]."
    assert check_claims(wrong, hits_for(PUBS), bundled_index.embedder).unsupported == [wrong]


def test_citations_of_files_not_retrieved_are_invented(hits_for, bundled_index):
    answer = (
        "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 "
        "[guide_kestrelford.md, guide_halden_bay.md]. The bakery sells out by 11am [guide_pellew_sands.md]."
    )
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.invented_citations == ["guide_halden_bay.md", "guide_pellew_sands.md"]
    assert check.unsupported == ["The bakery sells out by 11am [guide_pellew_sands.md]."]  # its only citation is invented
    assert [c.chunk_id for c in check.citations] == ["guide_kestrelford.md#2"]


@pytest.mark.parametrize(
    "answer",
    [
        REFUSAL,
        f"{REFUSAL} [guide_kestrelford.md]",
        f"{REFUSAL}\n\n[guide_kestrelford.md, Eat and drink]",
        "I don’t have enough information about that.",
        f' "{REFUSAL}" ',
    ],
)
def test_refusal_even_with_a_citation_has_no_source(hits_for, bundled_index, answer):
    assert is_refusal(answer)
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.refused and check.citations == [] and check.unsupported == [] and check.invented_citations == []


def test_refusal_sentence_followed_by_claims_is_not_a_refusal(hits_for, bundled_index):
    answer = f"{REFUSAL} However, the pubs serve food from 12 to 2 [guide_kestrelford.md]."
    assert not is_refusal(answer)
    assert not check_claims(answer, hits_for(PUBS), bundled_index.embedder).refused


def test_citation_after_the_full_stop_stays_with_its_sentence():
    text = "Buses leave Brightwater hourly. [guide_kestrelford.md] No buses run on Sundays. [guide_regional_transport.md]"
    assert answer_sentences(text) == [
        "Buses leave Brightwater hourly [guide_kestrelford.md].",
        "No buses run on Sundays [guide_regional_transport.md].",
    ]


def test_list_items_are_separate_claims():
    text = "Here is what the guides say:\n- The pubs serve food from 12 to 2.\n* The bakery sells out by 11am.\n1. No buses run on Sundays."
    assert answer_sentences(text) == [
        "Here is what the guides say:",
        "The pubs serve food from 12 to 2.",
        "The bakery sells out by 11am.",
        "No buses run on Sundays.",
    ]


def test_cited_files_in_order_of_first_mention():
    text = "A [guide_b.md]. B (guide_a.md; guide_b.md). C [guide_kestrelford.md, Eat and drink]."
    assert cited_files(text) == ["guide_b.md", "guide_a.md", "guide_kestrelford.md"]


def test_uncited_supported_sentence_still_gets_its_source(hits_for, bundled_index):
    check = check_claims("No buses run to Kestrelford on Sundays.", hits_for(BUS), bundled_index.embedder)
    assert check.unsupported == []
    assert [c.file for c in check.citations] == ["guide_kestrelford.md"]
    assert check.citations[0].quote == "No buses run to Kestrelford on Sundays."


# ---------------------------------------------------------------- each failure kind, and why it is flagged


def flag_of(hits_for, bundled_index, question: str, claim: str):
    """The one flag the check raises on a one-sentence answer (with every index chunk known, as answering passes them)."""
    check = check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks)
    (flag,) = check.flags
    assert flag.sentence == claim and check.citations == []
    return flag


@pytest.mark.parametrize(
    ("question", "claim", "kind", "said", "source"),
    [
        # a time of day turned round: the number matches, the meaning does not
        ("When does the Brightwater market run?", "The Tuesday market sets up in Brightwater's square at 7pm [guide_eating.md].",
         "value", ['"7pm"', '7am'], "In Brightwater, the Tuesday market opens in the square at 7am and is packed away by 1pm."),
        ("How does winter affect walking in Brightwater?", "On weekdays the Brightwater paths are cleared by 7pm [guide_walking.md].",
         "value", ['"7pm"', '"7am"'], "On weekdays the paths are cleared by 7am, but at weekends clearing happens considerably later."),
        # a negation flipped: same words, opposite claim
        ("Is the mill tour at Givens Mill accessible?", "The mill tour at Givens Mill has an accessible route to the machinery floor [guide_accessibility.md].",
         "polarity", ["says what the guide denies"], "The mill tour at Givens Mill includes stairs, and the machinery floor has no accessible route."),
        ("Can I use one bus ticket with every operator?",
         "Bus tickets from any of the three operators are accepted on every bus in the region [guide_regional_transport.md].",
         "polarity", ["says what the guide denies"], "Three bus operators serve the region, and no operator accepts another operator's tickets."),
        ("Is the Halden Bay coastal path safe in bad weather?", "The high-wind closures on the Halden Bay coastal path are only advisory [guide_walking.md].",
         "polarity", ['"advisory"', '"enforced"'], "The high-wind closures are enforced and are not merely advisory."),
        ("When is the Givens Mill tearoom open?", "The tearoom at the mill is open 10 to 4 every day, Tuesdays included [guide_givens_mill.md].",
         "value", ['"every day, Tuesdays included"', '"every day except Tuesdays"'], None),
        # an opposite property
        ("What is the tour of the mill at Givens Mill like?",  # "it" is the machinery of the clause before
         "The machinery turns throughout the tour, and it's surprisingly quiet [guide_givens_mill.md].",
         "polarity", ['"quiet"', '"loud"'], "The running machinery is loud and makes a far stronger impression than a static exhibit would."),
        ("What is the Givens Mill tour like?",  # the side said as an adverb
         "The machinery on the tour runs quietly enough to talk over [guide_givens_mill.md].",
         "polarity", ['"quietly"', '"loud"'], "The running machinery is loud and makes a far stronger impression than a static exhibit would."),
        ("Is the beach at Pellew Sands good at high tide?",  # the tide said with a verb
         "The beach is at its best when the tide is high [guide_pellew_sands.md].",
         "polarity", ['"tide is high"', '"low tide"'], None),
        ("Can I use one bus ticket on all the buses?",  # "they" are the operators of the clause before
         "There are three bus operators and they'll all accept each other's tickets [guide_regional_transport.md].",
         "polarity", ["says what the guide denies"], None),
        ("Can I get around Halden Bay with a pushchair?",
         "Halden Bay's lanes are step-free, so getting about with a pushchair is easy [guide_accessibility.md].",
         "polarity", ['"step-free"', '"stepped"'], "The stepped lanes are difficult with luggage or a pushchair, and a wheelchair is harder still."),
        ("Is the walk up from the lower car park in Kestrelford hard?",  # a comparative side: "gentler" against "steeper"
         "Walking up into Kestrelford from the lower car park is gentler than it looks on the map [guide_kestrelford.md].",
         "polarity", ['"gentler"', '"steeper"'], "Kestrelford climbs a slope, and walking up from the lower car park proves steeper than a map suggests."),
        ("Is food cheaper away from the riverside in Brightwater?",
         "Food on Corry Lane costs about a third more than on Brightwater's riverside [guide_eating.md].",
         "polarity", ['"costs about a third more"', '"costs about a third less"'], None),
        ("Is parking difficult in Halden Bay?", "From the overflow car park it's a 12-minute walk downhill into Halden Bay [guide_halden_bay.md].",
         "polarity", ['"downhill"', '"uphill"'], "From the overflow lot it is a 12-minute uphill walk into town."),
        ("Is there a bus inside Kestrelford?", "Kestrelford has a local bus service around the town [guide_kestrelford.md].",
         "polarity", ["says what the guide denies"], "Kestrelford has no local bus service inside the town."),
        ("Does the Givens Mill watermill still work?", "The watermill at Givens Mill stopped producing flour decades ago [guide_givens_mill.md].",
         "polarity", ["denies what the guide says", "still produces flour"], None),
        ("Is the coastal path at Halden Bay open in high wind?",
         "In high wind the Halden Bay coastal path stays open but walkers are advised to take care [guide_halden_bay.md].",
         "polarity", ['"stays open"', '"shut"'], "In high wind the coastal path is genuinely dangerous and is shut."),  # the side in a clause of its own
        ("Where can I park in Pellew Sands?",  # metered parking is paid for
         "You can park on the seafront for free, and the station car park is a four-minute walk [guide_pellew_sands.md].",
         "polarity", ['"free"', '"metered"'], None),
        ("Is the Givens Mill tearoom accessible?",  # the guide's subject is two things joined by "and": one clause
         "The Givens Mill tearoom is not accessible for wheelchairs [guide_accessibility.md].",
         "polarity", ["denies what the guide says", "The tearoom and the riverside"], None),
        ("Can I climb the Elder Ness lighthouse?",  # going inside, where the guide says it is closed to the public
         "At the end of the shingle walk you can step inside the lighthouse and look out from the top [guide_elder_ness.md].",
         "polarity", ['"step inside"', '"closed to the public"'], None),
        ("Are hotels in Marchwood expensive?", "Marchwood's hotels are scarce and expensive all year [guide_marchwood.md].",
         "polarity", ['"scarce"', '"plentiful"'], None),
        # opposite properties from the guides' wider vocabulary: firmness, weather, booking, running, nearness
        ("What is the beach like at Pellew Sands?", "Two miles of soft sand make up the beach at Pellew Sands [guide_pellew_sands.md].",
         "polarity", ['"soft"', '"hard"'], None),
        ("What is the weather like in Brightwater in winter?", "Brightwater's winters are mild [guide_brightwater.md].",
         "polarity", ['"mild"', '"cold"'], None),
        ("How do I get tickets for Sunday lunch in Thornby Wells?",
         "For Sunday lunch in Thornby Wells you can simply turn up on the day [guide_thornby_wells.md].", "polarity", ['"on the day"', '"ahead"'], None),
        ("Is the mill tour worth it at Givens Mill?", "On each tour the machinery is left idle so visitors can look closely [guide_givens_mill.md].",
         "polarity", ['"idle"', '"running"'], None),
        ("Is there anything to see near Marchwood station?", "Plenty worth seeing lies close to Marchwood station [guide_marchwood.md].",
         "polarity", ['"close to"', '"not near"'], None),
        ("How do I get around Marchwood?", "Marchwood's interesting districts are all next to each other [guide_marchwood.md].",
         "polarity", ['"next to each other"', '"not adjacent"'], None),
        # a side turned round under the same condition (both sides are in the guide, under opposite tides)
        ("When is the Pellew Sands beach best?", "The beach at Pellew Sands is at its best at high tide [guide_pellew_sands.md].",
         "polarity", ['"best"', '"unremarkable" of the same case'], None),
        ("Is the beach at Pellew Sands any good?", "The beach is superb at high tide, while at low tide it's nothing special [guide_pellew_sands.md].",
         "polarity", ['"superb"', '"unremarkable" of the same case'], None),  # the contrast turned round
        ("Where should I stay in Pellew Sands?", "The Marine Terrace guesthouses are noisier than the hotels on the seafront [guide_pellew_sands.md].",
         "polarity", ['"noisier"', '"quieter"'], None),
        # a price or a car park turned round in phrasal words ("go up" where the guide says "drop")
        ("Where should I stay in Halden Bay?", "Outside July and August, Halden Bay prices go up [guide_halden_bay.md].",
         "polarity", ['"prices go up"', '"prices drop"'], None),
        ("Where can I park in Pellew Sands?", "The car park behind Pellew Sands station is usually full [guide_pellew_sands.md].",
         "polarity", ['"full"', '"has space"'], None),
        # a claim of everything where the guide says most, or many
        ("Do I need cash?", "Every place in Halden Bay takes cards, so cash is never needed [guide_halden_bay.md].",
         "polarity", ['"every"', '"most"'], "Most places now take cards, but carrying some cash still helps at the market and in the smaller shops."),
        ("Where can I eat in Brightwater?", "Every Brightwater kitchen is closed on Sundays [guide_brightwater.md].",
         "polarity", ['"every"', '"many"'], "On Sundays many Brightwater kitchens close entirely."),
        ("Can I walk the coastal path in winter?",  # "often" in a clause of nothing but what is said of the sentence's subject
         "The coastal path is closed for the whole of the winter [guide_seasons.md].", "polarity", ['"whole"', '"often"'], None),
        # a comparison of two cases: what follows "than" takes the other side ("on the day" is the dearer case)
        ("Are train tickets cheaper if I book in advance?", "The cheapest train fares are the ones bought on the day [guide_regional_transport.md].",
         "polarity", ['"cheapest"', '"cheaper ... than when bought on the day" of the same case'],
         "Train tickets are cheaper when booked the day before than when bought on the day."),
        ("Are train tickets cheaper if I book in advance?",
         "Buying a train ticket on the day costs less than booking it the day before [guide_regional_transport.md].", "polarity", ['"costs less"'], None),
        ("Are train tickets cheaper if I book in advance?",
         "Tickets are dearer booked the day before than bought on the day [guide_regional_transport.md].", "polarity", ['"dearer"'], None),
        ("Is there phone signal in Elder Ness?",  # "less reliable" leans away from the guide's "strong"
         "Phone signal in Elder Ness is less reliable in the middle of town than toward the edges [guide_elder_ness.md].",
         "polarity", ['"less reliable"'], None),
        ("Are train tickets cheaper if I book in advance?",  # the claim's own "rather than" comparison, turned round
         "Train tickets cost more if you book the day before rather than buying on the day [guide_regional_transport.md].",
         "polarity", ['"cost more"'], None),
        # the same months on both sides: compared though worded far apart
        ("Is Halden Bay busy in summer?", "Halden Bay is pleasantly uncrowded in July and August, so parking is easy [guide_halden_bay.md].",
         "polarity", ['"uncrowded" where the guide says'], None),
        # a thing added to what the guide limits with "only"
        ("Can I pay cash for train tickets at Brightwater?",
         "The ticket machine on the Brightwater platform takes coins as well as cards [guide_regional_transport.md].",
         "polarity", ['"coins" too', "cards only"], "The ticket machine on the Brightwater platform accepts cards only."),
        # a claim about the whole region, against what the guide says of the region rather than of one town
        ("When is the best time to visit the region?", "In September the region is warm but busy [guide_seasons.md].",
         "polarity", ['"busy"', '"quiet"'], None),
        # a detail added to a true sentence
        ("What is the museum in Halden Bay like?", "The fishing museum on Fell Street takes 40 minutes to see and is free to enter [guide_halden_bay.md].",
         "value", ['a price ("free")'], None),
        ("When are concerts on in Thornby Wells?", "Concerts in the assembly rooms cost £10 a ticket [guide_thornby_wells.md].",
         "value", ['a price ("£10")'], None),
        # an amount where the guide only says "expensive": the amount is the invented detail
        ("Where should I stay in Brightwater?", "During graduation week, rooms in Brightwater are scarce and cost about £150 [guide_brightwater.md].",
         "value", ['"£150"', '"expensive"'], "During graduation week and in early September, accommodation in Brightwater is scarce and expensive."),
        ("How do I get to Elder Ness?", "Because the road floods, Elder Ness can only be reached by boat at high tide [guide_elder_ness.md].",
         "added", ["boat"], None),
        # an inference beyond the text
        ("How long is the walk from Givens Mill to Brightwater?",
         "You can walk from Givens Mill to Brightwater and catch a bus back on any day of the week [guide_walking.md].",
         "value", ['"any day of the week"', '"weekday"'], None),
        ("How do I get to Givens Mill by bus?", "Buses from Brightwater run to Givens Mill every day of the week [guide_givens_mill.md].",
         "value", ['"every day of the week"'], None),
        # a fact moved to another town
        ("How do harbour front prices in Halden Bay compare with Fell Street?",
         "On the seafront at Pellew Sands, prices are about twice those on Fell Street [guide_eating.md].",
         "place", ["Halden Bay"], "On Halden Bay's harbour front, prices are about twice those of Fell Street, one level higher."),
        ("When does the Elder Ness pub serve food?", "Elder Ness's pub serves food from 12 to 2 and again from 6 to 8:30 [guide_eating.md].",
         "place", ["Kestrelford"], None),
        # one clause of a true sentence moved from another town ("finest market" is said of Kestrelford's)
        ("Which market in the region is the best?",
         "Marchwood's covered market opens six days a week and is the finest market in the region [guide_eating.md].",
         "place", ["of Kestrelford, not Marchwood"],
         "Kestrelford's Saturday market has been running since the 1400s and is the best market in the region,"
         " although the Saturday market shrinks a great deal from November to February."),
        # a wrong number, and two numbers swapped between their qualifiers
        ("Can I get to Kestrelford by train?", "Kestrelford lost its railway station in 1968 [guide_kestrelford.md].",
         "value", ['"1968"', '"1963"'], None),
        ("When is the mill at Givens Mill open?", "The mill at Givens Mill operates from April to October [guide_givens_mill.md].",
         "value", ['"from April to October"', '"from March to November'], None),
        ("How often do trams run in Marchwood?", "Trams in Marchwood run every 15 minutes on weekdays and every 8 minutes at weekends [guide_marchwood.md].",
         "value", ['"every 15 minutes" with "weekdays"', '"weekends"'], None),
        ("What is there to eat in Kestrelford?", "Kestrelford has a bakery, four cafés and two pubs [guide_kestrelford.md].",
         "value", ['"four cafés"', '"two cafés"'], "Kestrelford has a bakery, two cafés and four pubs."),  # each number is in the guide, of other things
        # a value tied to a place by the guide's sentence, though in a clause of its own
        ("Where can I eat in Corry Vale?", "You can eat at the pub in the third village on any day of the week [guide_corry_vale.md].",
         "value", ['"third" with "any day of the week"', '"from Thursday to Sunday"'], None),
        # a closing time in a clause of its own ("and closes at 5"), compared where the whole sentence points
        ("When is the Givens Mill tearoom open?", "The mill tearoom opens at 10 and closes at 5, every day but Tuesday [guide_givens_mill.md].",
         "value", ['"5"', '"10 / 4"'], None),
        # a 24-hour time with a leading zero is a morning time
        ("Where can I eat in Corry Vale?", "The Corry Vale farm shop closes at 04:00 [guide_corry_vale.md].", "value", ['"04:00"', '"4pm"'], None),
        # a time with no end ("at any time of the night") where the guide gives closing times
        ("Where and how late can I eat in Marchwood?", "Marchwood's kitchens will feed you at any time of the night [guide_marchwood.md].",
         "value", ['"any time of the night"', '"midnight / 10:30pm"'], None),
        # a percentage read as the proportion it is
        ("Is food cheaper away from the riverside in Brightwater?",
         "On Corry Lane the same food costs about 50% less than by the river [guide_brightwater.md].", "value", ['"50%"', '"a third"'], None),
        # "every" where the guide gives a count of them
        ("Is the campus far from Brightwater station?", "A shuttle meets every train at Brightwater station [guide_brightwater.md].",
         "polarity", ['"every"', '"four"'], None),
        # "any night of the week" is every day, where the guide gives three
        ("Can I get dinner in Givens Mill?", "The Givens Mill pub will do you dinner any night of the week [guide_givens_mill.md].",
         "value", ['"any night of the week"'], None),
        # "it's rare for" denies what follows, as "rarely" does
        ("When does the Kestrelford bakery sell out?", "It's rare for the Kestrelford bakery to sell out [guide_kestrelford.md].",
         "polarity", ["denies what the guide says"], None),
        # all of a set the guide gives a part of
        ("How long is the Corry Vale circuit?", "The Corry Vale walk links up all four villages [guide_corry_vale.md].",
         "value", ['"all four villages"', '"three of the four villages"'], None),
        # "only in summer" where the guide says all year round
        ("Does the coast bus to Halden Bay run in winter?",
         "Buses to Halden Bay run four times a day, though only in summer [guide_regional_transport.md].", "value", ['"summer"', '"all year round"'], None),
        # the months a guide's "outside" leaves out
        ("Are rooms cheap in Pellew Sands in summer?", "Rooms in Pellew Sands are cheap in July and August [guide_pellew_sands.md].",
         "value", ['"July and August"', '"outside July and August"'], "Outside July and August, accommodation prices are low."),
        # "decent" is a side of good / poor
        ("Is the food good near Marchwood station?", "The food near Marchwood station is decent [guide_eating.md].",
         "polarity", ['"decent"', '"poor"'], None),
        # an exact hour where the guide gives only a part of the day
        ("When is the Kestrelford market?", "Kestrelford's Saturday market opens at 9am [guide_kestrelford.md].", "value", ['"9am"'], None),
        # a part of the day that only meets the guide's at its edge ("afternoon" / "morning" at noon)
        ("When is the Kestrelford market?", "The Kestrelford market is held on Saturday afternoons [guide_kestrelford.md].",
         "value", ['"afternoons"', '"morning"'], None),
        # the days a guide denies do not make the other days said: "no bus on Sundays" is not "every day but Sunday"
        ("Is there a bus to Givens Mill?", "Buses to Givens Mill run four times a day, every day except Sunday [guide_givens_mill.md].",
         "value", ['"every day except Sunday"'], None),
        # a comparison turned round, its subject named before a pronoun ("a taxi, | it costs more than the bus")
        ("How do I get from Marchwood to the airport?", "If three of you share a taxi, it costs more than the airport bus [guide_marchwood.md].",
         "polarity", ['"costs more" of what it is compared with'], None),
        # "going strong" / "in full swing" is a side of open / closed
        ("Are coastal places open in November?", "In November the coast's businesses are all still going strong [guide_seasons.md].",
         "polarity", ['"going strong"', '"close"'], None),
        # a means of payment where the guide allows only another
        ("Can I pay cash for train tickets at Brightwater?", "The ticket machine on the Brightwater platform takes cash [guide_regional_transport.md].",
         "polarity", ['"cash"', "cards only"], None),
        # and the only means it allows, denied
        ("Does the Brightwater ticket machine take cards?", "You can't pay by card at the Brightwater platform's ticket machine [guide_regional_transport.md].",
         "polarity", ['"not card"', "cards only"], None),
        # a limit the guide sets ("only") said not to hold
        ("Where can I camp in Corry Vale?", "In Corry Vale camping is not restricted to the two marked fields [guide_corry_vale.md].",
         "polarity", ["not limited", "only on two marked fields"], None),
        # the same limit denied without naming what it limits to ("isn't restricted", "no restrictions on")
    ("Can I camp anywhere in Corry Vale?", "Camping in Corry Vale isn't restricted [guide_corry_vale.md].",
     "polarity", ["not limited", "only on two marked fields"], None),
    ("Can I camp anywhere in Corry Vale?", "There are no restrictions on where you camp in Corry Vale [guide_corry_vale.md].",
     "polarity", ["not limited", "only on two marked fields"], None),
    # a day the guide denies, said as open: the reason says which side denies it
    ("When does the Elder Ness pub serve food?", "The pub is open on Mondays and serves food from 12 to 2 [guide_elder_ness.md].",
     "value", ['says "Mondays" where the guide says "not Mondays"'], None),
    # a denied day the guide denies only of another thing (the shop's, not the pub's)
    ("When does the Elder Ness pub serve food?",
     "The Elder Ness pub serves food from 12 to 2 and 6 to 8, and it is closed on Sundays [guide_elder_ness.md].",
     "value", ['"Sundays"', '"Mondays"'], None),
    # the guide's proportion with the two things swapped round it
        ("Is Fell Street cheaper than the harbour front in Halden Bay?",
         "Fell Street charges about double what the harbour front does for similar food [guide_halden_bay.md].",
         "value", ['"double" the other way round'], None),
        # an inference beyond the text: a conclusion drawn from a true premise that the guide does not state
        ("Where should I eat in Halden Bay?",
         "Because the harbour restaurants buy straight off the boats, Halden Bay has the best food in the whole region [guide_halden_bay.md].",
         "inference", ['"Halden Bay has the best food in the whole region"'], None),
        # a conclusion ranking what its premise does not ("the cheapest"), however close it is to the guide
        ("Where should I eat in Halden Bay?",
         "Since the harbour restaurants buy straight off the boats, Halden Bay has the cheapest seafood in the region [guide_halden_bay.md].",
         "inference", ['concludes "cheapest"'], None),
        # a ranking the guide gives second place ("... after Marchwood") claimed first
        ("Is Thornby Wells good in winter?",
         "Thornby Wells is the single most reliable winter destination in the whole region [guide_thornby_wells.md].",
         "polarity", ['"the single most reliable"', "after Marchwood"], None),
        # a choice turned round: the two things swapped, or the one chosen denied
        ("What kind of accommodation is there in Halden Bay?",
         "Most accommodation in Halden Bay is in hotels rather than holiday lets [guide_halden_bay.md].",
         "polarity", ["turns round what the guide prefers", "holiday lets rather than hotels"], None),
        ("Is eating out in Thornby Wells cheap?",
         "Prices on Pump Street aren't at Marchwood levels; they're more like a village's [guide_thornby_wells.md].",
         "polarity", ["turns round what the guide prefers", "Marchwood rather than village levels"], None),
        # a charge with no amount, where the guide gives none
        ("Are the Thornby Wells gardens free?", "Entry to the Thornby Wells gardens carries a small charge [guide_thornby_wells.md].",
         "value", ['"a small charge"'], None),
        # and a charge affirmed where the guide's prices are low
        ("Where can I stay in Pellew Sands?", "Outside July and August, rooms in Pellew Sands are expensive [guide_pellew_sands.md].",
         "polarity", ['"expensive"', '"prices are low"'], None),
        # an opposite property said of a thing whose name takes the other side ("the climb ... is gentler")
        ("Is Kestrelford manageable for someone with limited mobility?",
         "Kestrelford is on a hillside, and the climb from the lower car park is gentler than you would think from a map [guide_accessibility.md].",
         "polarity", ['"gentler"', '"steeper"'], None),
    ],
)  # fmt: skip
def test_each_failure_kind_is_flagged_with_its_reason_and_source(hits_for, bundled_index, question, claim, kind, said, source):
    flag = flag_of(hits_for, bundled_index, question, claim)
    assert flag.kind == kind
    for words in said:
        assert words in flag.reason
    if source:
        assert flag.source.quote == source
    chunk = next(c for c in bundled_index.chunks if c.chunk_id == flag.source.chunk_id)
    assert flag.source.quote in sentences(chunk.text)
    assert flag.to_json() == {"sentence": claim, "kind": kind, "reason": flag.reason, "source": flag.source.to_json()}


# Paraphrases of many styles a small model writes; none should be flagged.
PARAPHRASES = [
    ("Is there a bus into Corry Vale?",  # "when seats are free": free for the taking, not of charge
     "The school bus is the only way in, and it picks up other people when seats are free [guide_corry_vale.md]."),
    ("Where can I stay in Thornby Wells?",  # a participle after a denial says something of its own: not "not all year"
     "Room rates don't jump around, staying moderate right through the year [guide_thornby_wells.md]."),
    ("When is the Givens Mill tearoom open?",  # "opens ten till four": two clock times, not a count of ten
     "It opens ten till four daily, apart from Tuesday [guide_givens_mill.md]."),
    ("How long does the bus from Brightwater to Givens Mill take?",  # "four a day" is a rate, not a day long
     "The bus takes half an hour and there are four a day on weekdays [guide_givens_mill.md]."),
    ("When are the Thornby Wells gardens open?",  # a closing time says when it is open, as "stay open until dusk" does
     "The gardens behind the pump room close at dusk [guide_thornby_wells.md]."),
    ("When do trains leave Marchwood for Brightwater?",  # "last" singles out a train the guide runs until 11pm: no added thing
     "The last train to Brightwater leaves Marchwood at 23:00 [guide_marchwood.md]."),
    ("Is there a bus into Corry Vale?",  # "seats free": free for the taking, not of charge
     "Only the school bus goes into the valley, and it takes other passengers when it has seats free [guide_corry_vale.md]."),
    ("Where can I eat in Thornby Wells?",  # Marchwood only compared with: the four places are Thornby Wells'
     "Pump Street has four good places, priced on a par with Marchwood rather than a village [guide_thornby_wells.md]."),
    ("Is Thornby Wells worth a winter visit?",
     "With concerts from September to April, it is the region's most reliable winter destination after Marchwood [guide_thornby_wells.md]."),
    ("What is the tour of the mill at Givens Mill like?",
     "The machinery turns throughout the tour, and it's noisy [guide_givens_mill.md]."),  # "noisy" for "loud", of "it"
    ("Is the Marchwood museum free?", "Entry to Marchwood's excellent city museum costs nothing [guide_marchwood.md]."),  # "costs nothing" for "free"
    ("Where can I park in Thornby Wells?", "Drivers pay nothing to park for two hours anywhere in town [guide_thornby_wells.md]."),  # "pay nothing": free
    # a conclusion whose ranking the guide gives ("the most reliable")
    ("Is Thornby Wells worth a winter visit?",
     "The concert season runs from September to April, so Thornby Wells is the region's most reliable winter destination after Marchwood"
     " [guide_thornby_wells.md]."),
    # advice on what to do ("wear boots with proper tread") adds no fact
    ("Is the Brightwater pond path icy in winter?", "Wear sturdy boots with proper tread, as the path past the pond ices over in winter [guide_walking.md]."),
    # a reflexive pronoun is no word to rank sentences by: the clause's value is what it is about
    ("Is the Brightwater mill museum worth a visit?", "Give yourself an hour and a half there [guide_brightwater.md]."),
    # a charge denied is "free"
    ("Is the Marchwood museum free?", "Marchwood's city museum won't charge you to get in [guide_marchwood.md]."),
    ("Is the Marchwood museum free?", "There's no entry fee at Marchwood's city museum [guide_marchwood.md]."),
    # a day denied where the guide denies it, however close a sentence about the other days is
    ("Can I get the bus to Kestrelford?",
     "Buses leave Brightwater hourly on weekdays and every two hours on Saturdays, with no service on Sundays [guide_kestrelford.md]."),
    # "beside": where a thing is, as "next to" or "by" say it, no added fact
    ("When is the Givens Mill tearoom open?", "The tearoom beside the mill trades from 10 to 4 every day but Tuesday [guide_givens_mill.md]."),
    ("How do I get to Thornby Wells?", "Thornby Wells is twenty-five minutes from the hub on the Marchwood line [guide_thornby_wells.md]."),
    ("How do harbour front prices in Halden Bay compare with Fell Street?",
     "Food on Halden Bay's harbour front is dearer, about twice what it costs on Fell Street [guide_eating.md]."),
    ("When does the farm shop in Corry Vale close?",
     "At the mouth of the valley, selling bread and cheese and little else, the farm shop closes at 4pm [guide_corry_vale.md]."),  # reordered
    ("How late can I eat in Marchwood?", "Marchwood kitchens serve until 00:00 on Fridays and Saturdays and until 22:30 on other nights [guide_marchwood.md]."),
    ("How far is the airport from Brightwater?",
     "Brightwater has no airport of its own, and the nearest is an hour and a half away by road [guide_brightwater.md]."),
    ("Can I visit the lighthouse at Elder Ness?", "The lighthouse isn't open to the public, but the walk out to it is the real point [guide_elder_ness.md]."),
    ("Is the chapel in Corry Vale open?", "The chapel in the second village dates from the 12th century and is always open [guide_corry_vale.md]."),
    ("When is the Givens Mill tearoom open?", "The tearoom is open daily from 10 until 4, except on Tuesdays [guide_givens_mill.md]."),
    ("Where can I buy train tickets at Brightwater?",
     "Brightwater station's ticket office is open Mon–Fri, in the mornings only [guide_regional_transport.md]."),
    ("How far is everything from Kestrelford's market square?",
     "Nowhere in Kestrelford is more than ten minutes' walk from the market square [guide_kestrelford.md]."),
    ("How long is the train from Brightwater to the hub?",
     "The train from Brightwater to the hub takes fifty minutes, with eleven trains on weekdays [guide_brightwater.md]."),  # "fifty" for "50"
    ("How many people live in Halden Bay?", "Halden Bay is a working fishing port of eight thousand people [guide_halden_bay.md]."),
    # a comparison turned round, the same fact
    ("Is the airport bus or a taxi cheaper from Marchwood?",
     "For three people sharing, a taxi to the airport costs less than the airport bus [guide_marchwood.md]."),
    # a denial of days wherever it stands, one left to its sentence, one implied by an exception
    ("Do riverside businesses in Brightwater close in winter?",
     "Several riverside businesses in Brightwater close altogether from January to March, and the winters are cold [guide_brightwater.md]."),
    ("Is it easy to eat out on a Sunday evening in Pellew Sands?",
     "Most kitchens in Pellew Sands shut on Sunday evenings, so eating out then is hard [guide_pellew_sands.md]."),
    ("Can I buy a train ticket at Brightwater on a Saturday?",
     "Brightwater station has no ticket office at weekends, only on weekday mornings [guide_regional_transport.md]."),
    # values given by a section heading, or by another clause of the guide's sentence
    ("Is Brightwater quiet in summer?", "Once the university empties in summer, Brightwater becomes quiet to the point of dullness [guide_seasons.md]."),
    ("When does the Brightwater market pack up?", "By 1 in the afternoon the Tuesday stalls in Brightwater have all gone [guide_brightwater.md]."),
    # a town named only to compare with
    ("How many good restaurants are in Thornby Wells?",
     "Pump Street has four really good places to eat, priced like Marchwood rather than a village [guide_thornby_wells.md]."),
    # region-wide guides holding the fact in other words
    ("Is Kestrelford's bakery worth visiting?", "Kestrelford's bakery usually sells out by 11am and is why many people come back [guide_eating.md]."),
    ("Which town is hardest with a wheelchair?",
     "The accessibility guide rates Halden Bay as difficult, because its three levels are linked by stepped lanes [guide_accessibility.md]."),
    # a negated antonym, a verb that denies, an added way of doing what the guide says, a value tied by its sentence
    ("When is Brightwater busiest?", "From late September to November, Brightwater is never quiet [guide_brightwater.md]."),
    ("Is there anything to see near Marchwood station?", "Hardly anything worth seeing is near Marchwood's station [guide_marchwood.md]."),
    ("Is eating on Pump Street in Thornby Wells expensive?",  # what a comparison sets aside is not affirmed
     "Expect Pump Street prices closer to Marchwood's than to what you'd pay in a village [guide_thornby_wells.md]."),
    ("Is seafront parking in Pellew Sands cheap?", "Seafront parking in Pellew Sands is metered and far from cheap [guide_pellew_sands.md]."),
    ("Where do I catch a coach in Brightwater?",
     "Long-distance coaches skip the station and pull in on Verrill Street instead [guide_brightwater.md]."),
    ("How do I get around Marchwood?",
     "You can cross the centre of Marchwood on foot, though the interesting districts are spread out [guide_marchwood.md]."),
    ("How do I get tickets for Sunday lunch in Thornby Wells?", "Sunday lunch in Thornby Wells needs booking a week ahead [guide_thornby_wells.md]."),
    # "but not" excepts once
    ("When does the Elder Ness pub serve food?", "Elder Ness's pub does food from 12 to 2 and 6 to 8, but not on Mondays [guide_elder_ness.md]."),
    ("Where should I stay in Pellew Sands?", "The seafront hotels are noisier than the Marine Terrace guesthouses [guide_pellew_sands.md]."),
    ("When is the Pellew Sands beach best?",
     "The beach at Pellew Sands is excellent when the tide is out and unremarkable when it is in [guide_pellew_sands.md]."),
    ("Can I pay cash for train tickets at Brightwater?", "The Brightwater platform's ticket machine only takes cards [guide_regional_transport.md]."),
    ("Can I pay cash for train tickets at Brightwater?", "The Brightwater platform's ticket machine won't take cash [guide_regional_transport.md]."),
    ("When is the Givens Mill tearoom open?", "The mill tearoom opens at ten and closes at four, every day but Tuesday [guide_givens_mill.md]."),
    ("What is the drive to Halden Bay like?", "The coast road into Halden Bay is slow, taking 40 minutes for 22 miles [guide_halden_bay.md]."),
    ("Where is the closest full hospital?", "According to the accessibility guide, the closest full hospital is in Marchwood [guide_accessibility.md]."),
    ("Is the Brightwater river path flat?",
     "According to the walking guide, the Brightwater river path is level the whole way and has a made surface [guide_walking.md]."),
    # values written another way: hours and minutes together, a unit left for the reader to carry over,
    # a weekend's nights, a verb for a ratio, a phrasal verb
    ("How do I get to Pellew Sands?", "From the hub the train to Pellew Sands takes 1 hr 10 mins [guide_pellew_sands.md]."),
    ("How do I get to Corry Vale?",
     "From Brightwater you drive thirty-five minutes on a good road and then another twenty on a poor one [guide_corry_vale.md]."),
    ("How late can I eat in Marchwood?", "Marchwood kitchens stay open till midnight at weekends and till 22:30 on other nights [guide_marchwood.md]."),
    ("How many people live in Brightwater?", "Around forty thousand people live in Brightwater, twice that in term time [guide_brightwater.md]."),
    ("When should I book a room in Kestrelford?",  # "not needed" for the guide's "unnecessary"
     "In Kestrelford you should book ahead between May and September, but outside those months it is not needed [guide_kestrelford.md]."),
    ("How long is the drive to Kestrelford?", "The drive from Brightwater to Kestrelford is about an hour [guide_kestrelford.md]."),
    ("How do I get around Marchwood?",  # a count of lines beside intervals whose unit is left off
     "Marchwood's four tram lines run until midnight, every 8 minutes on weekdays and every 15 at weekends [guide_marchwood.md]."),
    ("Is the Givens Mill tour worth it?",  # "striking" and "display" for the guide's "impressive" and "exhibit"
     "On every mill tour the machinery is running, and the noise makes it far more striking than a static display [guide_givens_mill.md]."),
    ("Is the Brightwater mill museum good?",  # "section" for the guide's "part"
     "The mill museum is well worth a visit, and its best section looks at how the town fared after the mill shut [guide_brightwater.md]."),
    ("How hard is the Corry Vale circuit?",  # "four" tied to "500 metres" by the guide's sentence, "eleven miles" by another's
     "The circuit through three of Corry Vale's four villages is roughly nine miles long with five hundred metres of climbing [guide_corry_vale.md]."),
    # a denial carried over a comma, one scoped to the thing denied, a prefix, a determiner before a side
    ("Is there anywhere to stay near Kestrelford?", "There is no accommodation of any kind within four miles of Kestrelford [guide_kestrelford.md]."),
    ("Can I swim at Elder Ness?",
     "There's no lifeguard on the shingle beach and the current is strong, so swimming there isn't safe [guide_elder_ness.md]."),
    ("Is the Kestrelford road passable in snow?", "In snow you can't drive the approach road to Kestrelford [guide_walking.md]."),
    ("Is Givens Mill accessible?",
     "The mill tour at Givens Mill can't be done in a wheelchair, as there's no step-free route to the machinery floor [guide_accessibility.md]."),
    ("How far is the Brightwater river walk?",
     "The river walk heads upstream for about four miles, roughly six and a half kilometres, to a weir [guide_brightwater.md]."),
    # numbers in other formats: a rate with "daily", thousands grouped by a space, percentages, "double those", "half ten the"
    ("How do I get to Pellew Sands by train?", "From the hub to Pellew Sands is a 70-minute train ride, with 7 trains daily [guide_pellew_sands.md]."),
    ("How many people live in Brightwater?", "Brightwater's population is about 40 000, roughly twice that during term [guide_brightwater.md]."),
    ("Where should I eat in Pellew Sands?", "Marine Terrace has four or five good places costing about 50% of seafront prices [guide_pellew_sands.md]."),
    ("Is food cheaper away from the riverside in Brightwater?", "On Corry Lane the same food costs about 33% less than by the river [guide_brightwater.md]."),
    ("How do harbour front prices in Halden Bay compare with Fell Street?",
     "Harbour-front food in Halden Bay costs about twice as much as on Fell Street [guide_halden_bay.md]."),
    ("How late can I eat in Marchwood?",
     "Marchwood kitchens serve until midnight on Fri and Sat, and until half ten the rest of the week [guide_marchwood.md]."),
    ("Is the pier at Pellew Sands open?", "What survives of the Pellew Sands pier, built in the 1890s, is open and free of charge [guide_pellew_sands.md]."),
    ("How do I get around Marchwood?", "The interesting districts of Marchwood are spread out rather than side by side [guide_marchwood.md]."),
    ("Where should I stay in Marchwood?",  # the guide's "double their prices" is dear, like "prices double"
     "Conference weeks in March and October fill Marchwood's hotels and prices double [guide_marchwood.md]."),
    ("Where should I stay in Marchwood?", "Conference weeks in March and October fill Marchwood's hotels and push prices up twofold [guide_marchwood.md]."),
    ("When do kitchens close in Brightwater?",  # "close all day Sunday" for "close entirely on Sundays"
     "Most Brightwater kitchens stop serving at nine in the evening, and many close all day Sunday [guide_brightwater.md]."),
    ("Is there a bus inside Kestrelford?", "There is no local bus within Kestrelford itself [guide_kestrelford.md]."),
    ("When is the Givens Mill tearoom open?", "Except on Tuesdays, the mill tearoom is open daily between 10 and 4 [guide_givens_mill.md]."),
    ("When do the pubs in Kestrelford serve food?", "Kestrelford pubs serve food 12 till 2 and 6 till half eight [guide_kestrelford.md]."),
    ("How long is the walk to the Elder Ness lighthouse?",
     "Reaching the Elder Ness lighthouse means a walk of under half an hour over shingle [guide_elder_ness.md]."),
    # a town named only as where a journey starts or ends: the claim is about the cited guide's town
    ("How do I get to Pellew Sands?",
     "The branch line takes 70 minutes from the hub with seven trains a day, the station is on the seafront,"
     " and the drive from Brightwater is 50 minutes [guide_pellew_sands.md]."),
    ("What is there to do in Givens Mill?",
     "Mill tours leave hourly from 11 to 3 with the machinery running, and the river walk to Brightwater takes about three hours [guide_givens_mill.md]."),
    # a count of a part ("three of the four villages"), a word said twice ("from end to end") added once
    ("How long is the Corry Vale circuit?", "The Corry Vale circuit is a nine-mile walk through three villages [guide_corry_vale.md]."),
    ("How long is the Pellew Sands seafront?", "Pellew Sands has a two-mile seafront that is flat from end to end [guide_pellew_sands.md]."),
    # "every" or "always" where the guide says so too, or beside the guide's own "most"
    ("When do kitchens close in Halden Bay?", "Everything in Halden Bay closes by 9pm [guide_halden_bay.md]."),
    ("Do I need cash?", "Most places take cards, but it's always worth carrying some cash for the market and small shops [guide_halden_bay.md]."),
    ("Do I need cash?", "Cards are taken almost everywhere now, but some cash still helps at the market and in the smaller shops [guide_halden_bay.md]."),
    ("Do concert tickets sell out in Thornby Wells?", "Concert tickets in Thornby Wells almost never sell out [guide_thornby_wells.md]."),
    ("Do I need cash?", "Not every place takes cards, so carry some cash for the market and small shops [guide_halden_bay.md]."),
    # a comparison of two cases, turned round with its cases
    ("Are train tickets cheaper if I book in advance?",
     "Buying a train ticket on the day costs more than booking it the day before [guide_regional_transport.md]."),
    ("Are train tickets cheaper if I book in advance?",
     "Train tickets cost more when bought on the day than when booked the day before [guide_regional_transport.md]."),
    ("Are train tickets cheaper if I book in advance?",  # the case after "than" named by a bare participle
     "Tickets are cheaper booked the day before than bought on the day [guide_regional_transport.md]."),
    # what the guide names only as compared with ("cheaper than buying two single fares") is not what it says to do
    ("Which tram ticket should I buy in Marchwood?",
     "Get a tram day ticket instead of two singles, as it works out cheaper [guide_marchwood.md]."),
    ("Is Thornby Wells good in winter?",  # a second place kept, said before the ranking
     "After Marchwood, Thornby Wells is the region's most reliable winter destination [guide_thornby_wells.md]."),
    ("Where can I stay in Halden Bay?",  # a choice supposed, not denied: "if you'd rather not ..."
     "If you'd rather not take a holiday let, there is one inn on the harbour [guide_halden_bay.md]."),
    ("What kind of accommodation is there in Halden Bay?",  # the guide's choice kept, in its own order
     "Halden Bay is holiday lets rather than hotels, nearly all of it [guide_halden_bay.md]."),
    ("Is Thornby Wells easy to get around in a wheelchair?",  # a side said "least" of: "the least demanding" is "the easiest"
     "Thornby Wells is the least demanding town in the region for limited mobility [guide_accessibility.md]."),
    ("When is the best time to visit Givens Mill?",  # a side said of the clause's own month, not of the sentence's others
     "The mill runs March to November and shuts in winter, so December is not a good time to go [guide_givens_mill.md]."),
    ("Is there phone signal in Elder Ness?",  # a side said "less" of leans the other way: the guide's "unreliable"
     "Toward the edges of Elder Ness the phone signal is less reliable [guide_elder_ness.md]."),
    ("Are train tickets cheaper if I book in advance?",  # the claim's own comparison, "rather than", read as its two cases
     "Train tickets cost less if you book the day before rather than buying on the day [guide_regional_transport.md]."),
    ("How many people live in Kestrelford?", "Kestrelford, a hilltop town of 12k people, lies an hour inland from Brightwater [guide_kestrelford.md]."),
    ("When do the pubs in Kestrelford serve food?",
     "Kestrelford's pubs serve lunch from midday until two and dinner from six until half past eight [guide_kestrelford.md]."),
    # "it's rare for ..." denies as "rarely" does; a contraction ("they're") is its word, not an added one
    ("Do concert tickets sell out in Thornby Wells?",
     "It's rare for concert tickets to sell out in Thornby Wells [guide_thornby_wells.md]."),
    ("Are the footpaths in Corry Vale easy to follow?",
     "Corry Vale's footpaths form a dense network and they're well waymarked [guide_corry_vale.md]."),
    # a guide clause after a comma with its own subject is not under the denial before it
    ("Can I get around Corry Vale with a mobility scooter?",
     "Corry Vale has no public transport and its villages lie two to four miles apart [guide_accessibility.md]."),
    # a town named as where the nearest of something is: the claim is still about the cited guide's town
    ("Is there a hospital near Pellew Sands?",
     "Phone signal is strong in the middle of town, and the nearest full hospital is in Brightwater [guide_pellew_sands.md]."),
    # days denied that are exactly the days the guide leaves out ("not a weekend bus": "a weekday bus")
    ("Can I walk from Brightwater to Givens Mill and get the bus back?",
     "Don't count on a weekend bus back from Brightwater to Givens Mill; it has to be a weekday one [guide_walking.md]."),
    # the same comparison from the other side, its subject named before a pronoun
    ("How do I get from Marchwood to the airport?",
     "If there are three of you, take a taxi: it costs less than the airport bus [guide_marchwood.md]."),
    # "the lack of beds | is not really a problem": what is said of a denied subject is not denied
    ("Can I stay overnight in Givens Mill?", "Givens Mill has no rooms of its own, but it's easy to stay in Brightwater instead [guide_givens_mill.md]."),
    # "only ... its own" says yes and no at once, as "cards only" does
    ("Can I use one bus ticket everywhere?", "Each bus operator only accepts its own tickets [guide_regional_transport.md]."),
    # a chatty model's asides ("bear in mind", "unfortunately", "definitely") are no added detail
    ("When does the Kestrelford bakery sell out?", "Bear in mind that the Kestrelford bakery has usually sold out by 11am [guide_kestrelford.md]."),
    # a proportion said from the other side: the reciprocal, with the two things swapped round it
    ("Is Fell Street cheaper than the harbour front in Halden Bay?",
     "Fell Street charges about half what the harbour front does for similar food [guide_halden_bay.md]."),
    # "the rest of the town": no added detail
    ("Is Halden Bay hilly?", "Only the harbour front is level; the rest of the town is on levels linked by stepped lanes [guide_halden_bay.md]."),
    # "want", "your best bet": no added detail
    ("When is the beach at Pellew Sands quiet?", "If you want the sands without crowds, your best bet is June or September [guide_pellew_sands.md]."),
    # "of any sort", "out to": no added detail
    ("Is there a bus to Elder Ness?", "No public transport of any sort goes out to Elder Ness [guide_elder_ness.md]."),
    # the months a guide's "the rest of the year" names
    ("Do I need to book a room in Kestrelford?", "From October to April there's no need to book a room in Kestrelford [guide_kestrelford.md]."),
    # a town only left from, or named as where the closest of something is: the claim is about the cited guide's town
    ("Can I get the bus to Kestrelford on a weekend?",
     "Services leaving Brightwater run every two hours on a Saturday and there are none at all on Sunday [guide_kestrelford.md]."),
    ("Is Elder Ness reachable by rail?",
     "The closest station is Pellew Sands, and the road onto the headland floods about six times a year [guide_elder_ness.md]."),
    # a contrast the guide draws too, its halves in the other order: each half meets the guide's half on its side
    ("Is the beach at Pellew Sands any good?", "The beach is superb at low tide, while at high tide it's nothing special [guide_pellew_sands.md]."),
    # "no public transport, apart from a school bus": the exception is the one there is, not a denial of it
    ("How do I get to Corry Vale without a car?",
     "The only public transport into Corry Vale is a school bus, which takes passengers when it has spare seats [guide_corry_vale.md]."),
    # "no public transport of any kind" says there is no bus and no train; "no station", that no train stops
    ("Is there any public transport out to Elder Ness?", "No bus or train of any kind runs out to Elder Ness [guide_elder_ness.md]."),
    ("Could I get to Givens Mill by public transport on Sunday?",
     "No train reaches Givens Mill, and on Sundays there's no bus [guide_givens_mill.md]."),
    # what a value measures, named beside it ("400 metres of height" for "climbs 400 metres"), adds nothing
    ("Is it hard to cycle into Corry Vale?", "The road into the valley gains 400 metres of height in its first four miles [guide_corry_vale.md]."),
    # a denial ends before "outside" the times: "nowhere to eat | outside the pubs' hours" denies no serving times
    ("Can I get a meal in Kestrelford in the afternoon?",
     "You won't find anywhere in Kestrelford to eat outside the pubs' food hours, 12 to 2 and 6 to 8:30 [guide_kestrelford.md]."),
    # "each day" after a count of trains is how many a day, not every day of the week
    ("How often do trains run to Pellew Sands?", "Seven trains running each day link the regional hub with Pellew Sands [guide_pellew_sands.md]."),
    # going inside denied, as the guide's "closed to the public" does
    ("Can I climb the Elder Ness lighthouse?", "Nobody can step inside the Elder Ness lighthouse, but the walk out to it is worth it [guide_elder_ness.md]."),
    # a town naming a railway line is no place the claim is about: the hourly trains are Thornby Wells' own
    ("How often do trains run to Thornby Wells?",
     "It sits on the Marchwood line, with trains every hour and one every two hours on Sundays [guide_thornby_wells.md]."),
    # a charge denied ("isn't expensive") gives no price: it is the guide's "prices are low"
    ("Where can I stay in Pellew Sands?", "Once July and August are over, a room in Pellew Sands isn't expensive [guide_pellew_sands.md]."),
    # "back in 1963" adds nothing to the year
    ("Does Kestrelford have a railway station?",
     "Kestrelford lost its railway line back in 1963, and the trackbed is now a walking route [guide_kestrelford.md]."),
]


@pytest.mark.parametrize(("question", "claim"), PARAPHRASES)
def test_paraphrases_of_many_styles_pass(hits_for, bundled_index, question, claim):
    check = check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks)
    assert check.flags == [] and len(check.citations) == 1


# ---------------------------------------------------------------- evidence follows the answer's contract

SHARED = "Is there a minor injuries unit nearby?"  # retrieval shows one copy of the towns' identical "Practical notes"


def test_every_guide_holding_a_shown_shared_text_is_a_valid_citation(hits_for, bundled_index):
    (shown,) = [h.chunk for h in hits_for(SHARED)]
    assert shown.section == "Practical notes"
    holders = [c for c in bundled_index.chunks if c.body == shown.body and c.file != shown.file]
    assert len(holders) >= 8
    for holder in holders:
        claim = f"For a full hospital you have to go to Brightwater, and the minor injuries unit nearby keeps limited hours [{holder.file}]."
        check = check_claims(claim, hits_for(SHARED), bundled_index.embedder, chunks=bundled_index.chunks)
        assert check.flags == [] and check.invented_citations == []
        (citation,) = check.citations
        assert (citation.file, citation.chunk_id) == (holder.file, holder.chunk_id)  # the guide the model cited
    # without the index's chunks only the shown copy is known: another guide's copy is not
    claim = f"Phone signal is strong in the middle of town [{holders[0].file}]."
    assert check_claims(claim, hits_for(SHARED), bundled_index.embedder).invented_citations == [holders[0].file]


def test_open_at_limited_times_is_the_shared_texts_limited_hours(hits_for, bundled_index):
    claim = "A nearby minor injuries unit is open at limited times, and the full hospital is in Brightwater [guide_halden_bay.md]."
    assert check_claims(claim, hits_for(SHARED), bundled_index.embedder, chunks=bundled_index.chunks).flags == []


def test_a_denial_turned_round_after_a_setting_clause_is_flagged(hits_for, bundled_index):
    """"After the pubs stop serving, | you can still find a meal": the second clause names only "meal", and the setting
    before the comma is what it shares with the guide's "outside those times there is nowhere ... to get a meal"."""
    claim = "After the pubs stop serving, you can still find a meal in Kestrelford [guide_kestrelford.md]."
    check = check_claims(claim, hits_for("Where can I eat in Kestrelford and when?"), bundled_index.embedder, chunks=bundled_index.chunks)
    assert [flag.kind for flag in check.flags] == ["polarity"] and "nowhere in Kestrelford" in check.flags[0].reason
    kept = "The three bus operators don't accept each other's tickets, which is what confuses visitors most [guide_regional_transport.md]."
    assert check_claims(kept, hits_for("Any tips on buses round the region?"), bundled_index.embedder, chunks=bundled_index.chunks).flags == []


def test_a_flipped_fact_in_a_shared_text_is_still_flagged(hits_for, bundled_index):
    claim = "The minor injuries unit nearby is open around the clock [guide_halden_bay.md]."
    check = check_claims(claim, hits_for(SHARED), bundled_index.embedder, chunks=bundled_index.chunks)
    assert [f.kind for f in check.flags] == ["polarity"] and check.invented_citations == []
    assert '"around the clock"' in check.flags[0].reason and '"limited hours"' in check.flags[0].reason


def test_chunks_beyond_the_cutoff_are_no_evidence(retriever, bundled_index):
    retrieval = retriever.retrieve(PUBS)
    claim = "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_kestrelford.md]."
    assert check_claims(claim, retrieval.within_cutoff, bundled_index.embedder).flags == []
    beyond = [dataclasses.replace(h, above_cutoff=h.chunk.chunk_id == "guide_kestrelford.md#2") for h in retrieval.hits]
    check = check_claims(claim, dataclasses.replace(retrieval, hits=beyond).within_cutoff, bundled_index.embedder)
    assert check.unsupported == [claim] and check.citations == []


def test_a_short_claim_whose_exact_values_one_sentence_gives_is_about_that_sentence(hits_for, bundled_index):
    """"8000 residents" is all the claim says and the guide's long opening sentence gives it: far apart in words, the
    same fact. A wrong number is still a wrong value, and a season alone ties a claim to no sentence."""
    question = "How many people live in Halden Bay?"
    check = lambda claim: check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks).flags  # noqa: E731
    assert check("Halden Bay has 8000 residents [guide_halden_bay.md].") == []
    (flag,) = check("Halden Bay has 9000 residents [guide_halden_bay.md].")
    assert flag.kind == "value" and "9000" in flag.reason
    winter = "What is Brightwater like in winter?"
    claim = "Brightwater largely shuts down in winter [guide_seasons.md]."
    (flag,) = check_claims(claim, hits_for(winter), bundled_index.embedder, chunks=bundled_index.chunks).flags
    assert flag.kind == "place"  # "winter" alone does not tie it to the sentence saying Brightwater carries on


def test_a_number_whose_unit_is_left_to_the_reader_is_still_compared(hits_for, bundled_index):
    """"another twenty" after "35 minutes" is the guide's "20 more minutes"; "another forty" is not."""
    question = "How do I get to Corry Vale?"
    claim = "From Brightwater you drive thirty-five minutes on a good road and then another forty on a poor one [guide_corry_vale.md]."
    (flag,) = check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks).flags
    assert flag.kind == "value" and "forty" in flag.reason


def test_a_count_of_a_named_thing_is_not_read_against_another_amounts_number(hits_for, bundled_index):
    """"Three inns" is not stated by "two or three nights" beside it: a count of inns is not the number of a stay."""
    question = "Where can I stay in Halden Bay for a couple of nights?"
    claim = "If a holiday let is not for you, the harbour has three inns to choose from [guide_halden_bay.md]."
    (flag,) = check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks).flags
    assert flag.kind == "value" and "three" in flag.reason
    faithful = "If a holiday let is not for you, the harbour has one inn [guide_halden_bay.md]."
    assert not check_claims(faithful, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks).flags


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        ("Where should I eat in Halden Bay?", "The harbour restaurants buy straight off the boats, so get there early [guide_halden_bay.md]."),  # advice
        ("Is Marchwood good in winter?",
         "Since almost everything is indoors, Marchwood is the one place in the region that works in winter [guide_marchwood.md]."),
    ],
)  # fmt: skip
def test_a_conclusion_the_guide_states_or_advice_is_no_inference(hits_for, bundled_index, question, claim):
    assert not check_claims(claim, hits_for(question), bundled_index.embedder, chunks=bundled_index.chunks).flags


@pytest.mark.parametrize(
    ("sentence", "conclusion"),
    [
        ("Prices halve in winter, so the town is empty", "the town is empty"),
        ("Since the road floods, the village is cut off for days", "the village is cut off for days"),
        ("So the museum is the best in the region", "the museum is the best in the region"),
        ("The pub is so busy in August that you must book", None),  # "so" as an intensifier
        ("The bakery sells out by 11am, so go early", None),  # advice
    ],
)
def test_the_conclusion_a_sentence_draws_is_found(sentence, conclusion):
    from guide_tui.claims import conclusion_of

    assert conclusion_of(sentence) == conclusion


def test_evidence_read_while_the_model_writes_leaves_the_check_only_the_answers_sentences(retriever, hits_for, monkeypatch):
    from guide_tui import claims

    claims.READ_CHUNKS.clear()
    hits = hits_for("How late do the Marchwood trams run?")
    claims.read_evidence(hits, retriever.index.embedder, retriever.index.chunks)
    reads = []
    real_read = claims.read
    monkeypatch.setattr(claims, "read", lambda texts, *rest, **options: reads.append(options.get("evidence", False)) or real_read(texts, *rest, **options))
    assert "When to go" not in {hit.chunk.section for hit in hits}
    answer = "Marchwood's trams run until midnight [guide_marchwood.md]. Hotel prices double in the conference weeks of March and October [guide_marchwood.md]."
    check = check_claims(answer, hits, retriever.index.embedder, chunks=retriever.index.chunks)
    assert check.unsupported == []
    assert [citation.section for citation in check.citations][-1] == "When to go"  # held by a chunk not shown
    assert reads == [False]  # the answer's sentences; no guide chunk is read again, not even the cited guide's unshown ones


def test_a_guide_cited_but_not_shown_counts_when_it_holds_the_claim_and_what_was_shown_says_it_too(hits_for, bundled_index):
    """The eating guide says the mill tearoom's flour is milled twenty metres away; the question showed Givens Mill's
    guide, which says so too."""
    hits = hits_for("Is the Givens Mill tearoom open on Tuesdays?")
    assert "guide_eating.md" not in {h.chunk.file for h in hits}
    claim = "The tearoom's bread uses flour milled just twenty metres away [guide_eating.md]."
    check = check_claims(claim, hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert check.flags == [] and [c.file for c in check.citations] == ["guide_givens_mill.md"]
    assert check.invented_citations == ["guide_eating.md"]  # still said: the model was not shown it
    alone = check_claims(claim, hits, bundled_index.embedder)  # without the index's chunks the cited guide cannot be read
    assert [f.kind for f in alone.flags] == ["citation"]


def test_a_guide_cited_but_not_shown_that_says_otherwise_is_still_a_citation_flag(hits_for, bundled_index):
    """The accessibility guide says the mill tour has stairs: citing it for a step-free tour is no support."""
    hits = hits_for("Givens Mill tearoom opening hours? and can you tour the mill")
    assert "guide_accessibility.md" not in {h.chunk.file for h in hits}
    claim = "The mill tour at Givens Mill is step-free all the way round [guide_accessibility.md]."
    check = check_claims(claim, hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert [f.kind for f in check.flags] == ["citation"]


def test_a_fact_of_the_cited_guide_the_model_was_not_shown_is_supported_and_marked_unshown(hits_for, bundled_index):
    """The bakery question shows Kestrelford's food and seasons, not its sights; the church tower's price is in the
    guide the sentence cites, so it is supported, its source marked as a chunk the model was not shown."""
    hits = hits_for("When does the Kestrelford bakery sell out?")
    assert "What to see" not in {h.chunk.section for h in hits if h.chunk.file == "guide_kestrelford.md"}
    check = check_claims("Climbing the church tower costs £2 [guide_kestrelford.md].", hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert check.flags == []
    assert [(c.section, c.shown, c.to_json()["shown"]) for c in check.citations] == [("What to see", False, False)]
    wrong = check_claims("Climbing the church tower costs £5 [guide_kestrelford.md].", hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert [f.kind for f in wrong.flags] == ["value"]


def test_a_sentence_naming_no_town_that_cites_a_region_wide_guide_is_about_the_one_town_shown(hits_for, bundled_index):
    """Of the town guides only Halden Bay's is shown, and of the eating guide a chunk without Fell Street: the
    sentence, naming no town, is read as about Halden Bay, and the eating guide's unshown chunk holds it."""
    hits = hits_for("Is the food good in Halden Bay?")
    assert {h.chunk.file for h in hits} == {"guide_halden_bay.md", "guide_eating.md"}
    assert not any("Fell Street" in h.chunk.text for h in hits if h.chunk.file == "guide_eating.md")
    claim = "Harbour-front prices are about double what you'd pay on Fell Street, one level up [guide_eating.md]."
    check = check_claims(claim, hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert check.flags == []
    assert [(c.file, c.shown) for c in check.citations] == [("guide_eating.md", False)]


def test_a_value_the_shown_chunks_dispute_but_an_unshown_chunk_of_the_cited_guide_gives_is_supported(hits_for, bundled_index):
    """Shown "Opening hours" of the eating guide gives the pubs' serving times, not the bakery's; its "Local specifics"
    (not shown) says the bakery sells out by 11am: the time is the guide's, so the sentence is supported and its
    source marked unshown. A time no chunk of the guide gives is still flagged against the shown ones."""
    hits = hits_for("Where can I eat in Kestrelford?")
    assert "Local specifics" not in {h.chunk.section for h in hits}
    right = check_claims("By 11am the Kestrelford bakery has usually sold out [guide_eating.md].", hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert right.flags == []
    assert [(c.section, c.shown) for c in right.citations] == [("Local specifics", False)]
    wrong = check_claims("By 3pm the Kestrelford bakery has usually sold out [guide_eating.md].", hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert [(f.kind, f.reason) for f in wrong.flags] == [("value", 'says "3pm" where the guide says "12 / 2 / 6 / 8:30"')]
    off = check_claims(
        "By 11am the Kestrelford bakery has usually sold out [guide_eating.md].", hits, bundled_index.embedder,
        chunks=bundled_index.chunks, settings=dataclasses.replace(DEFAULT_SETTINGS, unshown_chunks=False),
    )
    assert [f.kind for f in off.flags] == ["value"]


def test_a_claim_one_unshown_chunk_holds_but_another_denies_stays_flagged(hits_for, bundled_index):
    """The walk to the lighthouse takes 25 minutes ("Getting around", not shown), but the lighthouse is closed to the
    public ("What to see", shown): one chunk alone holding the sentence is not enough when the guide says otherwise."""
    hits = hits_for("When is the best time to see birds at Elder Ness?")
    sections = {h.chunk.section for h in hits if h.chunk.file == "guide_elder_ness.md"}
    assert "Getting around" not in sections
    claim = "The lighthouse is open to the public, and the walk to it takes 25 minutes [guide_elder_ness.md]."
    check = check_claims(claim, hits, bundled_index.embedder, chunks=bundled_index.chunks)
    assert check.unsupported == [claim]


@pytest.mark.parametrize(
    ("clause", "sides", "denial_ends_at"),
    [
        ("you can eat outside in summer", {"indoors": frozenset({-1})}, None),  # outdoors
        ("there is nowhere to eat outside serving times", {}, "outside"),  # a span of time: not "not outdoors"
        ("nothing is open outside school holidays", {"open": frozenset({-1})}, "outside"),
    ],
)
def test_outside_a_span_of_time_is_no_place_and_ends_a_denial(clause, sides, denial_ends_at) -> None:
    """One list (claim_polarity.SPANS_OF_TIME) says what "outside" can be outside of in time, for the indoors pair
    and for where a denial ends: "outside serving times" is not outdoors, and denies nothing itself."""
    read = polarity(clause)
    assert read.sides == sides
    if denial_ends_at:
        assert clause.index(denial_ends_at) in read.scope_ends.values()
