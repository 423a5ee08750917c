"""Claim extraction: clauses with the subject carried over, list items, pronouns, questions."""

from __future__ import annotations

import pytest

from ragmetrics_core.judges.embedded.claims import MAX_CLAIMS, extract_claims


def _texts(text: str) -> list[str]:
    return [claim.text for claim in extract_claims(text)]


def test_compound_sentence_carries_the_subject() -> None:
    assert _texts("France is located in Western Europe, and its capital is Paris.") == [
        "France is located in Western Europe",
        "France's capital is Paris",
    ]


def test_participle_clause_becomes_a_claim_about_the_subject() -> None:
    assert _texts(
        "The Life Insurance Corporation of India (LIC) is the largest insurance company in India, known for its "
        "vast portfolio of investments. LIC contributes to the financial stability of the country."
    ) == [
        "The Life Insurance Corporation of India (LIC) is the largest insurance company in India",
        "The Life Insurance Corporation of India (LIC) is known for its vast portfolio of investments",
        "LIC contributes to the financial stability of the country",
    ]


def test_leading_pronoun_takes_the_previous_subject() -> None:
    claims = _texts("The Eiffel Tower is in Paris. It was completed in 1889.")
    assert claims == ["The Eiffel Tower is in Paris", "The Eiffel Tower was completed in 1889"]


def test_enumeration_becomes_one_claim_per_item() -> None:
    assert _texts("John is taking Data Structures, Algorithms, and Artificial Intelligence.") == [
        "John is taking Data Structures",
        "John is taking Algorithms",
        "John is taking Artificial Intelligence",
    ]


def test_relative_clause_inside_the_main_clause() -> None:
    assert _texts("Paris, which is the capital of France, has 2 million people.") == [
        "Paris is the capital of France",
        "Paris has 2 million people",
    ]


def test_inserted_participle_clause() -> None:
    assert _texts("The Eiffel Tower, located in Paris, was completed in 1889 and is 330 metres tall.") == [
        "The Eiffel Tower is located in Paris",
        "The Eiffel Tower was completed in 1889",
        "The Eiffel Tower is 330 metres tall",
    ]
    assert _texts("The club, founded in 1886, plays in Totton.") == [
        "The club was founded in 1886",
        "The club plays in Totton",
    ]


def test_a_clause_with_several_adverbials_stays_one_claim() -> None:
    # One claim per adverbial (the old argument split) ranked worse on every tune set but one; the clause is
    # checked whole, its longer content needing 70 % coverage.
    assert _texts("Paterson died on November 10, 2018, at the age of 78.") == [
        "Paterson died on November 10, 2018, at the age of 78"
    ]
    assert _texts("Музей в Париже открылся в 1793 году с 537 картинами.") == [
        "Музей в Париже открылся в 1793 году с 537 картинами"
    ]


def test_questions_hedges_and_empty_sentences_are_not_claims() -> None:
    assert _texts("Do you like it? Yes, I think that Paris is big. Haha!") == ["Paris is big"]
    assert _texts("") == []
    assert _texts("   ") == []
    assert _texts("ok.") == []



def test_conversational_reactions_are_not_claims() -> None:
    assert _texts("That is so true! The tower was completed in 1889.") == ["The tower was completed in 1889"]
    assert _texts("I agree with you. It really is. Absolutely!") == []
    assert _texts("Это правда. Башня построена в 1889 году.") == ["Башня построена в 1889 году"]
    assert _texts("It 's interesting that their scope of practice varies.") == ["their scope of practice varies"]
    # A reaction word inside a real statement keeps the statement.
    assert _texts("That is true to the original design.") == ["That is true to the original design"]
    assert _texts("The result was amazing.") == ["The result was amazing"]

def test_russian_clauses() -> None:
    assert _texts("Эйфелева башня была построена в 1889 году. В Париже весной мягкая погода.") == [
        "Эйфелева башня была построена в 1889 году",
        "В Париже весной мягкая погода",
    ]
    assert _texts("Париж — столица Франции, а Берлин является столицей Германии.") == [
        "Париж — столица Франции",
        "Берлин является столицей Германии",
    ]


def test_chinese_clauses_carry_the_subject() -> None:
    text = "印度人寿保险公司(LIC)是印度最大的保险公司,以其庞大的投资组合而闻名。LIC 为国家的金融稳定做出了贡献。"
    assert _texts(text) == [
        "印度人寿保险公司(LIC)是印度最大的保险公司",
        "印度人寿保险公司(LIC)以其庞大的投资组合而闻名",
        "LIC 为国家的金融稳定做出了贡献",
    ]


def test_claims_keep_the_language_of_the_input() -> None:
    for text in ("Башня стоит в Париже.", "铁塔位于巴黎。"):
        assert _texts(text)[0] in text


def test_claim_cap_on_huge_text() -> None:
    assert len(extract_claims("The tower is tall. " * 5000)) == MAX_CLAIMS


def test_whitespace_before_punctuation_does_not_change_the_claims() -> None:
    plain = _texts("The museum opened in 1902, and it holds 300 paintings.")
    assert _texts("The museum opened in 1902 , and it holds 300 paintings .") == plain
    assert _texts("The museum opened in 1902\u3000, and it holds 300 paintings\t.") == plain
    assert plain == ["The museum opened in 1902", "The museum holds 300 paintings"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # An opening connective or phrase is never the subject a later "It" stands for.
        ("However, Viva is a local restaurant. It also takes reservations.",
         ["However, Viva is a local restaurant", "Viva also takes reservations"]),
        ("Overall, Viva is a local business. It has potential.",
         ["Overall, Viva is a local business", "Viva has potential"]),
        ("In 1889, Eiffel built the tower. He was 56.", ["In 1889, Eiffel built the tower", "Eiffel was 56"]),
        ("Однако, Пушкин писал стихи. Он жил в Москве.", ["Однако, Пушкин писал стихи", "Пушкин жил в Москве"]),
        # The opening phrase runs to the last comma before the verb: its own list or place has commas too.
        ("Known for its breakfast, brunch and pies, Denny's is a diner. It offers parking.",
         ["Known for its breakfast, brunch and pies, Denny's is a diner", "Denny's offers parking"]),
        ("In Paris, France, Eiffel built the tower. He was 56.",
         ["In Paris, France, Eiffel built the tower", "Eiffel was 56"]),
        # An apposition after a name still ends the subject at its first comma.
        ("Paris, the capital of France, is large. It is old.",
         ["Paris, the capital of France, is large", "Paris is old"]),
        ("The Eiffel Tower, located in Paris, is tall. It is old.",
         ["The Eiffel Tower is located in Paris", "The Eiffel Tower is tall", "The Eiffel Tower is old"]),
        # A place written with commas stays in the inserted clause.
        ("Aksum, located at 815 E Figueroa St in Santa Barbara, CA, is a restaurant.",
         ["Aksum is located at 815 E Figueroa St in Santa Barbara, CA", "Aksum is a restaurant"]),
    ],
)
def test_the_subject_follows_an_opening_phrase(text: str, expected: list[str]) -> None:
    assert _texts(text) == expected


def test_he_after_a_possessive_subject_is_its_owner_unless_the_owned_is_a_person() -> None:
    assert _texts("Tony Morris is in court. His blue Volvo was caught speeding. He says he was not driving.")[-1] == (
        "Tony Morris says he was not driving")
    assert _texts("Marie Curie's father was a teacher. He taught physics.")[-1] == "Marie Curie's father taught physics"
    assert _texts("Smith's new car is red. It is fast.")[-1] == "Smith's new car is fast"


def test_a_reporting_verb_ends_the_subject() -> None:
    # Before, "Morris says he" was taken as the subject a later "His" stands for.
    assert _texts("Tony Morris says he was not driving. His car was blue.")[-1] == "Tony Morris's car was blue"
    assert _texts("The author notes that riots may seem senseless. She highlights civil disobedience.")[-1] == (
        "The author highlights civil disobedience")


def test_a_past_form_after_a_noun_ends_the_subject() -> None:
    # Before, the subject ran to the first listed verb: "Queen Margrethe turned 80 yesterday and she" was repeated.
    assert _texts("Queen Margrethe turned 80 yesterday and she was seen on the balcony.") == [
        "Queen Margrethe turned 80 yesterday", "Queen Margrethe was seen on the balcony"]
    # After a determiner an "-ed" form is an adjective, listed verb or not.
    assert _texts("The reported case was closed. It was old.") == ["The reported case was closed",
                                                                  "The reported case was old"]


def test_a_verb_joined_to_a_relative_clause_shares_its_antecedent() -> None:
    assert _texts("Uniboil is known for its hot pots, which come in big portions and are cheap.") == [
        "Uniboil is known for its hot pots", "hot pots come in big portions", "hot pots are cheap"]


def test_list_items_after_a_second_predicate_share_only_its_verb() -> None:
    assert _texts("West pleaded no contest to battery and received probation, counselling, and a fine.") == [
        "West pleaded no contest to battery", "West received probation", "West received counselling",
        "West received a fine"]


def test_list_items_share_the_head_up_to_its_verb() -> None:
    assert _texts("The business has outdoor seating, free parking, and a bar.") == [
        "The business has outdoor seating", "The business has free parking", "The business has a bar"
    ]
    assert _texts("She visited the old town, the harbour, and the museum.") == [
        "She visited the old town", "She visited the harbour", "She visited the museum"
    ]
    assert _texts("He visited Paris, Rome, and Berlin.") == ["He visited Paris", "He visited Rome", "He visited Berlin"]


def test_a_connective_left_alone_by_a_split_is_not_a_claim() -> None:
    texts = _texts("However, yet another customer had a bad experience.")
    assert texts and "However" not in texts
    assert all("bad experience" in text for text in texts)


def test_a_russian_reflexive_past_verb_ends_the_subject() -> None:
    # "родился", "состоялась": past reflexive forms are verbs, so the subject is found and carried.
    assert _texts("Пушкин родился в Москве. Он писал стихи.") == ["Пушкин родился в Москве", "Пушкин писал стихи"]
    assert _texts("Выставка состоялась в Париже, и она привлекла тысячи гостей.") == [
        "Выставка состоялась в Париже", "Выставка привлекла тысячи гостей"
    ]


def test_reactions_and_hedges_are_read_in_each_language() -> None:
    assert _texts("嗯，我认为埃菲尔铁塔建于1889年。") == ["埃菲尔铁塔建于1889年"]
    assert _texts("没错！埃菲尔铁塔建于1889年。") == ["埃菲尔铁塔建于1889年"]
    assert _texts("Ну, мне кажется, что башня построена в 1889 году.") == ["башня построена в 1889 году"]
    assert _texts("Конечно! Wow, that is so true too!") == []
    # "I doubt that" changes the meaning: no hedge list holds it, so the claim keeps it.
    assert _texts("I doubt that the tower was built in 1889.") == ["I doubt that the tower was built in 1889"]
