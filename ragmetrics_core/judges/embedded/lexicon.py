"""Word lists the embedded judge reads: stopwords, abbreviations, negations, synonyms, hedges, question words.

Everything here is lower-case (``casefold``) and ``ё`` is written ``е``, matching :mod:`.normalize`.
The lists are small on purpose: they cover the function words of English, Russian and Chinese and the
handful of paraphrases that a purely lexical checker would otherwise count as missing content.
"""

from __future__ import annotations


def words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of a literal word list."""
    return tuple(text.split())

EN_STOPWORDS = frozenset(
    words("""
    a an the and or but nor so yet if then than that this these those there here where when while which who whom
    whose what why how of in on at to from by for with without within into onto upon about above below over under
    between among through during before after since until till against along across around near off out up down
    as is am are was were be been being do does did done doing have has had having will would shall should can
    could may might must i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves one ones someone something
    anyone anything everyone everything nothing all any both each either neither every few more most other some
    such only own same very too also just even still already again ever much many
    s t d ll m o re ve y ain st nd rd th not no never none cannot
    way ways get got gets getting go goes going gone went make made
    makes making let lets say said says tell told i'm it's that's there's don't
    doesn't didn't isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't i've you're they're we're
    he's she's i'd you'd
    """)
)

# Pronouns of the dialogue ("I", "you"): a claim about the speaker or the listener needs a premise about them.
DIALOGUE_PRONOUNS = frozenset(
    words("""
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    я меня мне мной мой моя мое мои мы нас нам наш наша наше наши ты тебя тебе твой твоя вы вас вам ваш ваша
    """)
)

# Evaluative words: an opinion the premise does not state is not attributable, so they weigh like names.
OPINION_WORDS = frozenset(
    words(
        """
        great greatest good best better worst bad awesome amazing favorite favourite love loved loves hate hated
        funny hilarious boring interesting beautiful excellent terrible fantastic wonderful brilliant cool nice
        scary sad underrated overrated average amazing incredible perfect horrible masterpiece
        хороший лучший любимый отличный ужасный интересный скучный смешной прекрасный
        """
    )
)

# Words that carry little evidential weight in a claim but are not pure function words.
EN_WEAK = frozenset(
    words("""
    include includes included including involve involves involved contain contains contained use used uses using
    call called calls name named known consider considered regarded become became becomes seem seems seemed
    typically usually often generally mostly mainly currently now today later first also various several
    different certain kind type part whole lot main major sometimes always frequently commonly mostly
    multiple numerous
    """)
)

# People a name stands beside without being them ("Curie's father" is not Curie; see relations.py).
EN_RELATIVES = frozenset(
    words("""
    father mother parents parent son sons daughter daughters child children brother brothers sister sisters wife
    husband widow widower grandfather grandmother grandson granddaughter uncle aunt cousin nephew niece stepfather
    stepmother stepson stepdaughter fiance fiancee partner boyfriend girlfriend family twin
    """)
)
# Nouns for a person: "He" after "Curie's father was …" is the father, after "Morris's car was …" it is Morris.
EN_PERSON_NOUNS = EN_RELATIVES | frozenset(
    words("friend friends coach manager lawyer attorney agent boss spokesman spokeswoman spokesperson colleague "
          "teammate assistant doctor mentor")
)

# Words that open a phrase set off by a comma before the subject ("However, …", "In 1889, …"): connectives,
# sentence adverbs and prepositions, never the subject.
OPENERS = frozenset(
    words("""
    however overall additionally moreover furthermore meanwhile nevertheless nonetheless consequently therefore
    thus hence finally first firstly second secondly third lastly besides instead otherwise similarly likewise
    indeed still today yesterday recently currently now then unfortunately fortunately notably specifically
    ultimately originally initially later eventually also altogether in on at after before during since until
    for from by with without under over through across between among within despite following according as
    while when although though because if unlike like
    однако кроме впрочем итак поэтому также например наконец сегодня вчера сейчас тогда в во на после до при
    с со по согласно несмотря хотя когда если
    """)
)

RU_STOPWORDS = frozenset(
    words("""
    и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от
    меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж
    вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без
    будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один
    почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после
    над больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед
    иногда лучше чуть том нельзя такой им более всегда конечно всю между это эта эти этих этим являются
    является являлся являлась было были будут было год года году годом годах годы лет г гг также который
    которая которое которые которого которой котором которых которым очень го свой своя свое свои своих
    """)
)

RU_WEAK = frozenset(
    words("""
    включает включают включать использовать используется используют называется называют известен известна
    известно известны считается считают обычно часто сейчас сегодня основной основная различные несколько
    """)
)

# Chinese function characters and words removed before character n-grams are built.
ZH_STOP_CHARS = frozenset("的了是在和与及而或也都就还又被把让给对于从向以为着过") | frozenset(
    "吗呢吧啊呀嘛之其这那此该个些我你他她它们"
)
ZH_STOPWORDS = frozenset(
    words("""
    我们 你们 他们 她们 它们 这个 那个 这些 那些 以及 并且 而且 但是 因为 所以 如果 虽然 然后 已经 可以 就是
    还是 或者 一个 一些 什么 怎么 如何 哪里 为什么 多少
    """)
)

# Chinese words that add little evidence ("known for", "include", "usually").
ZH_WEAK = frozenset(words("闻名 著名 知名 包括 使用 通常 主要 一般 目前 现在 已经"))

NEGATIONS_EN = frozenset(
    words("not no never none nobody nothing neither nor cannot n't don't doesn't didn't isn't aren't wasn't weren't "
    "can't couldn't won't wouldn't shouldn't hasn't haven't hadn't without")
)
NEGATIONS_RU = frozenset(words("не нет ни никогда ничего никто нельзя без"))
NEGATIONS_ZH = ("不", "没", "沒", "未", "无", "無", "非", "别", "莫", "勿")
# Chinese words that contain a negation character but do not negate.
ZH_NEGATION_FALSE_FRIENDS = ("不仅", "不但", "无论", "非常", "未来", "并非不", "毫无疑问", "不断", "无数", "别的")

# Period-terminated tokens that do not end a sentence (lower-case, without the final period).
ABBREVIATIONS = frozenset(
    words("""
    mr mrs ms dr prof sr jr st vs etc e.g i.e u.s u.k u.n inc ltd co corp no nos fig figs approx al gen gov sen
    rep mt ft jan feb mar apr jun jul aug sep sept oct nov dec est dept univ ave blvd vol vols pp p cf ca c op
    т.е т.к т.д т.п т.н г гг им ул д стр см напр др пр млн млрд тыс руб коп в вв н.э проф акад обл р ст дж
    """)
)
# Abbreviations that usually close a sentence when an upper-case word follows ("… and so on, etc. Then").
SENTENCE_FINAL_ABBREVIATIONS = frozenset(words("etc т.д т.п др"))

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000,
    "ноль": 0, "один": 1, "одна": 1, "одно": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "сто": 100, "тысяча": 1000,
    "миллион": 1_000_000, "миллиард": 1_000_000_000,
    # ordinals match their digits ("third" = "3rd"); not "first"/"second", which are as often adverbs or a unit
    "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
    "eleventh": 11, "twelfth": 12, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "hundredth": 100, "третий": 3, "третья": 3, "третье": 3, "четвертый": 4, "пятый": 5, "десятый": 10,
}
# Multipliers written after a number: "5 million", "3 млн", "2 тыс.".
NUMBER_SCALES = {
    "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 1_000_000_000_000,
    "тыс": 1000, "тысяч": 1000, "тысячи": 1000, "млн": 1_000_000, "миллиона": 1_000_000,
    "миллионов": 1_000_000, "млрд": 1_000_000_000, "миллиарда": 1_000_000_000, "миллиардов": 1_000_000_000,
    "万": 10_000, "亿": 100_000_000, "千": 1000,
}

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "января": 1, "февраля": 2, "марта": 3, "апреля": 4, "мая": 5, "июня": 6, "июля": 7, "августа": 8,
    "сентября": 9, "октября": 10, "ноября": 11, "декабря": 12,
    "январь": 1, "февраль": 2, "март": 3, "апрель": 4, "май": 5, "июнь": 6, "июль": 7, "август": 8,
    "сентябрь": 9, "октябрь": 10, "ноябрь": 11, "декабрь": 12,
}

# Groups of interchangeable words (first word is the canonical form). Matched after stemming, so one
# inflected form per word is enough. Kept to paraphrases a retrieval answer routinely makes.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("large", "big", "huge", "vast", "substantial", "enormous", "massive", "sizable"),
    ("small", "little", "tiny", "minor"),
    ("several", "multiple", "numerous", "various"),
    ("professional", "pro"),
    ("maximum", "highest", "top", "best"),
    ("build", "built", "construct", "constructed", "erect", "erected"),
    ("produce", "produced", "release", "released", "emit", "emitted", "generate", "generated", "create"),
    ("begin", "began", "start", "started", "commence"),
    ("end", "ended", "finish", "finished", "conclude"),
    ("buy", "bought", "purchase", "acquire", "acquired"),
    ("die", "died", "dead", "death"),
    ("found", "founded", "establish", "established"),
    ("locate", "located", "situated"),
    ("show", "shows", "display", "demonstrate"),
    ("help", "assist", "aid"),
    ("fast", "quick", "rapid"),  # not "swift": far more often a name (Taylor Swift, Jonathan Swift) than speed
    ("famous", "renowned", "well-known", "notable", "popular", "celebrated"),
    ("movie", "film", "picture"),
    ("car", "automobile", "vehicle"),
    ("child", "children", "kid", "kids"),
    ("enroll", "enrolled", "take", "taking", "attend", "register"),
    ("job", "work", "employment", "position"),
    ("waste", "byproduct"),
    ("usa", "america"),
    # month abbreviations of news and reference text ("Nov. 10, 2018")
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"),
    ("uk", "britain"),
    ("большой", "крупный", "огромный", "значительный"),
    ("построить", "построена", "построен", "возвести", "возведена", "сооружена", "завершена", "завершить"),
    ("основать", "основан", "основана", "учредить", "создан", "создана"),
    ("находиться", "находится", "расположен", "расположена"),
    ("фильм", "кино", "кинофильм"),
    ("fund", "funds", "portfolio", "portfolios", "holdings"),
    ("фонд", "фонды", "средства", "портфель"),
    ("资金", "投资组合", "基金"),
    ("大", "巨大", "庞大"),
    ("建成", "建造", "修建", "完工", "建于"),
    ("成立", "建立", "创立", "创建"),
    ("位于", "坐落"),
)

# Multi-word names rewritten to one token before tokenising, so both spellings match.
PHRASES = {
    "carbon dioxide": "co2", "united states": "usa", "united kingdom": "uk", "by-product": "byproduct",
    "by product": "byproduct", "углекислый газ": "co2", "соединенные штаты": "сша", "二氧化碳": "co2",
}

# Phrases by which a response declines to answer (checked on normalised text).
NONCOMMITTAL_PHRASES = (
    "i don't know", "i do not know", "i dont know", "don't know", "i'm not sure", "i am not sure", "not sure",
    "cannot answer", "can't answer", "unable to answer", "unable to provide", "cannot provide", "can't provide",
    "no information", "not enough information", "insufficient information", "don't have information",
    "do not have information", "don't have enough", "do not have enough", "no idea", "cannot determine",
    "can't determine", "unable to determine", "not mentioned", "does not mention", "doesn't mention",
    "not specified", "does not specify", "cannot say", "can't say", "not certain",
    "i'm unable", "i am unable", "i cannot", "i can't", "no answer",
    "не знаю", "не известно", "неизвестно", "затрудняюсь ответить", "нет информации", "нет данных",
    "не могу ответить", "не могу сказать", "не уверен", "не уверена", "недостаточно информации",
    "недостаточно данных", "не располагаю", "не указано", "не упоминается", "сложно сказать", "трудно сказать",
    "我不知道", "不知道", "无法回答", "不能回答", "不清楚", "不确定", "没有相关信息", "没有足够的信息", "没有信息",
    "无法确定", "无法提供", "不了解", "没有提到", "未提及", "未提到",
)

# Question words, read as one feature each so "where …?" and "what …?" questions differ.
QUESTION_WORDS = {
    "where": "where", "what": "what", "which": "what", "when": "when", "who": "who", "whom": "who",
    "whose": "who", "why": "why", "how": "how",
    "где": "where", "куда": "where", "откуда": "where", "что": "what", "какой": "what", "какая": "what",
    "какое": "what", "какие": "what", "каков": "what", "когда": "when", "кто": "who", "кого": "who",
    "почему": "why", "зачем": "why", "как": "how", "сколько": "how",
    "哪里": "where", "哪儿": "where", "什么": "what", "哪个": "what", "何时": "when", "什么时候": "when",
    "谁": "who", "为什么": "why", "怎么": "how", "如何": "how", "多少": "how", "几": "how",
}

# Prepositions that introduce a place (for "where" questions).
PLACE_PREPOSITIONS = frozenset(words("in at near on inside outside в на около возле"))

# Past-tense and present verbs that open a second predicate after "and" ("… has a generator and fights …").
EN_CLAUSE_VERBS = frozenset(
    words(
        """
        won wrote led made took went became began founded built gave got held left fights fought played plays
        starred stars released directed produced lives lived works worked died married moved
        """
    )
)
EN_AUXILIARIES = frozenset(
    words("is are was were has have had will would can could may might must shall should does do did "
    "becomes became remains remained")
)
RU_COPULAS = frozenset(words("является являются был была было были будет стал стала стали это"))
EN_PRONOUN_SUBJECTS = frozenset(words("it he she they this these those its his her their"))
RU_PRONOUN_SUBJECTS = frozenset(words("он она оно они его ее их это"))
BACK_REFERENCES = EN_PRONOUN_SUBJECTS | RU_PRONOUN_SUBJECTS | frozenset(
    words("him them ему ей им него нее них 它 他 她 其 该")
)
"""Words that point back to a subject named before ("Queen Elizabeth II opened it in 1973"): a sentence holding one
may speak of the claim's subject whatever else it names."""

# Past participles that open a clause about the sentence subject: "X, known for Y" → "X is known for Y".
EN_PARTICIPLE_OPENERS = frozenset(
    words("known located founded established built created based headquartered born used called named considered "
    "regarded designed developed made situated owned operated managed followed led")
)

# Chinese suffixes that end an organisation or place name.
ZH_ENTITY_SUFFIXES = ("公司", "大学", "学院", "银行", "集团", "协会", "组织", "医院", "委员会", "政府", "研究所",
                      "博物馆", "铁塔", "省", "市", "县", "国", "州", "河", "山", "湖", "岛")
