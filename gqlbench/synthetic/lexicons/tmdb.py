"""TMDB as a film fan says it: movies, shows, people, studios, networks, collections.

Readings follow the human split: "the lead actor" is ``cast[0]``, "the
director" filters the crew by job (the first crew member is listed as an
alternative reading: a sample is kept only when both agree or the words exclude
it), "the most popular show right now" is the first result of the popular list.
"When was X released?" is left out: the movie's details and its release dates
both answer it.
"""

from __future__ import annotations

from gqlbench.synthetic.intents import Ask, Lexicon, Noun, call

__all__ = ["LEXICON"]

_DIRECTOR = '[c for c in <@0>.crew if c.job == "Director"]'
_RELATED = frozenset({"related"})  # found as a recommendation or a look-alike: not asked for its own look-alikes


def _related(kind: str, thing: str) -> tuple[Noun, Noun]:
    """The top recommendation for fans of, and the {thing} most similar to, a movie or show: one pair for both kinds."""
    param, top = f"{kind}_id", "<@0>.results[0].id"
    return (
        Noun(
            kind,
            ("the top recommendation for fans of <x>", f"the {thing} most recommended for fans of <x>"),
            {"id": top},
            (call(f"GET_{kind}__{param}__recommendations", **{param: "<x.id>"}),),
            base=kind,
            tags=_RELATED,
        ),
        Noun(
            kind,
            (f"the {thing} most similar to <x>",),
            {"id": top},
            (call(f"GET_{kind}__{param}__similar", **{param: "<x.id>"}),),
            base=kind,
            tags=_RELATED,
        ),
    )


NOUNS = (
    # movies
    Noun(
        "movie",
        ("<name>", "the movie <name>", "the film <name>"),
        {"id": "<@0>.results[0].id"},
        (call("GET_search_movie", query="<name>"),),
        names="movie",
        possessive=("<name>'s",),
    ),
    Noun(
        "movie",
        ("the most popular movie right now", "today's most popular movie"),
        {"id": "<@0>.results[0].id"},
        (call("GET_movie_popular"),),
    ),
    Noun(
        "movie", ("the top-rated movie", "the best-rated movie of all time"), {"id": "<@0>.results[0].id"}, (call("GET_movie_top_rated"),)
    ),
    Noun(
        "movie",
        ("the top movie in theaters now", "the biggest movie in theaters right now"),
        {"id": "<@0>.results[0].id"},
        (call("GET_movie_now_playing"),),
    ),
    *_related("movie", "movie"),
    Noun(
        "movie",
        ("the first film of <x>", "the first movie in <x>"),
        {"id": "<@0>.parts[0].id"},
        (call("GET_collection__collection_id_", collection_id="<x.id>"),),
        base="collection",
    ),
    # shows
    Noun(
        "tv",
        ("<name>", "the show <name>", "the series <name>"),
        {"id": "<@0>.results[0].id"},
        (call("GET_search_tv", query="<name>"),),
        names="tv",
        possessive=("<name>'s",),
    ),
    Noun(
        "tv",
        ("the most popular TV show right now", "the most popular show right now"),
        {"id": "<@0>.results[0].id"},
        (call("GET_tv_popular"),),
    ),
    Noun(
        "tv",
        ("the highest-rated show", "the best-rated series of all time"),
        {"id": "<@0>.results[0].id"},
        (call("GET_tv_top_rated"),),
    ),
    Noun(
        "tv",
        ("the top show airing right now", "the top show airing this week"),
        {"id": "<@0>.results[0].id"},
        (call("GET_tv_on_the_air"),),
    ),
    Noun(
        "tv",
        ("today's top trending show", "the most trending TV show today"),
        {"id": "<@0>.results[0].id"},
        (call("GET_trending__media_type___time_window_", media_type='"tv"', time_window='"day"'),),
    ),
    Noun(
        "tv",
        ("this week's top trending show", "the most trending series this week"),
        {"id": "<@0>.results[0].id"},
        (call("GET_trending__media_type___time_window_", media_type='"tv"', time_window='"week"'),),
    ),
    *_related("tv", "show"),
    # people
    Noun(
        "person",
        ("<name>",),
        {"id": "<@0>.results[0].id"},
        (call("GET_search_person", query="<name>"),),
        names="person",
        possessive=("<name>'s",),
    ),
    Noun(
        "person",
        ("the most popular person in film right now", "the most popular star right now"),
        {"id": "<@0>.results[0].id"},
        (call("GET_person_popular"),),
    ),
    Noun(
        "person",
        ("the lead actor of <x>", "the star of <x>", "<x's> lead actor"),
        {"id": "<@0>.cast[0].id"},
        (call("GET_movie__movie_id__credits", movie_id="<x.id>"),),
        base="movie",
    ),
    Noun(
        "person",
        ("the director of <x>", "<x's> director", "whoever directed <x>"),
        {"id": f"{_DIRECTOR}[0].id"},
        (call("GET_movie__movie_id__credits", movie_id="<x.id>"),),
        base="movie",
        alternatives=({"id": "<@0>.crew[0].id"}, {"id": f"{_DIRECTOR}[-1].id"}),
    ),
    Noun(
        "person",
        ("the lead actor of <x>", "the star of <x>", "<x's> lead actor"),
        {"id": "<@0>.cast[0].id"},
        (call("GET_tv__tv_id__credits", tv_id="<x.id>"),),
        base="tv",
    ),
    Noun(
        "person",
        ("the creator of <x>", "whoever created <x>"),
        {"id": "<@0>.created_by[0].id"},
        (call("GET_tv__tv_id_", tv_id="<x.id>"),),
        base="tv",
        reads="created_by",
        alternatives=({"id": "<@0>.created_by[-1].id"},),
    ),
    # studios, networks, collections
    Noun(
        "company",
        ("<name>", "the studio <name>", "the company <name>"),
        {"id": "<@0>.results[0].id"},
        (call("GET_search_company", query="<name>"),),
        names="company",
        possessive=("<name>'s",),
    ),
    Noun(
        "company",
        ("the studio behind <x>", "the company that produced <x>"),
        {"id": "<@0>.production_companies[0].id"},
        (call("GET_movie__movie_id_", movie_id="<x.id>"),),
        base="movie",
        reads="production_companies",
        alternatives=({"id": "<@0>.production_companies[-1].id"},),
    ),
    Noun(
        "company",
        ("the company that produced <x>", "the studio behind <x>"),
        {"id": "<@0>.production_companies[0].id"},
        (call("GET_tv__tv_id_", tv_id="<x.id>"),),
        base="tv",
        reads="production_companies",
        alternatives=({"id": "<@0>.production_companies[-1].id"},),
    ),
    Noun(
        "network",
        ("the network that airs <x>", "the channel <x> is on", "<x's> network"),
        {"id": "<@0>.networks[0].id"},
        (call("GET_tv__tv_id_", tv_id="<x.id>"),),
        base="tv",
        reads="networks",
        alternatives=({"id": "<@0>.networks[-1].id"},),
    ),
    Noun(
        "collection",
        ("the <name>",),
        {"id": "<@0>.results[0].id"},
        (call("GET_search_collection", query="<name>"),),
        names="collection",
    ),
    Noun(
        "collection",
        ("the film series <x> belongs to", "the franchise <x> is part of"),
        {"id": "<@0>.belongs_to_collection.id"},
        (call("GET_movie__movie_id_", movie_id="<x.id>"),),
        base="movie",
        reads="belongs_to_collection",
    ),
)

ASKS = (
    # the search itself: what TMDB has under a name
    Ask(("movie",), ("Look up <x>.", "Search TMDB for <x>.", "Is <x> on TMDB?"), (), named=True),
    Ask(("tv",), ("Look up <x>.", "Search TMDB for <x>.", "Find <x> on TMDB."), (), named=True),
    Ask(("person",), ("Look up <x>.", "Search TMDB for <x>.", "Find <x> on TMDB."), (), named=True),
    Ask(("company",), ("Look up <x>.", "Search TMDB for <x>."), (), named=True),
    Ask(("collection",), ("Look up <x>.", "Search TMDB for <x>."), (), named=True),
    # a movie
    Ask(
        ("movie",),
        ("Who's in <x>?", "Who stars in <x>?", "Show me the cast of <x>.", "Who directed <x>?", "Who worked on <x>?"),
        (call("GET_movie__movie_id__credits", movie_id="<x.id>"),),
    ),
    Ask(
        ("movie",),
        ("Show me posters of <x>.", "Find images from <x>.", "I'd like to see some pictures from <x>."),
        (call("GET_movie__movie_id__images", movie_id="<x.id>"),),
    ),
    Ask(
        ("movie",),
        ("What keywords is <x> tagged with?", "Which keywords describe <x>?"),
        (call("GET_movie__movie_id__keywords", movie_id="<x.id>"),),
    ),
    Ask(
        ("movie",),
        ("What should I watch after <x>?", "Recommend movies for someone who liked <x>.", "I loved <x>; what else would I like?"),
        (call("GET_movie__movie_id__recommendations", movie_id="<x.id>"),),
        avoid=_RELATED,
    ),
    Ask(
        ("movie",),
        ("Find movies similar to <x>.", "What movies are like <x>?", "Any films like <x>?"),
        (call("GET_movie__movie_id__similar", movie_id="<x.id>"),),
        avoid=_RELATED,
    ),
    Ask(
        ("movie",),
        ("What do reviewers say about <x>?", "Show me reviews of <x>.", "Are the reviews of <x> any good?"),
        (call("GET_movie__movie_id__reviews", movie_id="<x.id>"),),
    ),
    Ask(
        ("movie",),
        ("What is <x> rated in each country?", "Show me <x's> release dates by country.", "What age rating did <x> get around the world?"),
        (call("GET_movie__movie_id__release_dates", movie_id="<x.id>"),),
    ),
    Ask(
        ("movie",),
        ("How long is <x>?", "What was the budget of <x>?", "How much did <x> make at the box office?", "What genre is <x>?"),
        (call("GET_movie__movie_id_", movie_id="<x.id>"),),
        reads={
            "How long is <x>?": "runtime",
            "What was the budget of <x>?": "budget",
            "How much did <x> make at the box office?": "revenue",
            "What genre is <x>?": "genres",
        },
    ),
    # a show
    Ask(("tv",), ("Who stars in <x>?", "Show me the cast of <x>.", "Who acts in <x>?"), (call("GET_tv__tv_id__credits", tv_id="<x.id>"),)),
    Ask(("tv",), ("Show me pictures from <x>.", "Find posters of <x>."), (call("GET_tv__tv_id__images", tv_id="<x.id>"),)),
    Ask(("tv",), ("What keywords is <x> tagged with?", "Which keywords describe <x>?"), (call("GET_tv__tv_id__keywords", tv_id="<x.id>"),)),
    Ask(
        ("tv",),
        ("What should I watch after <x>?", "I finished <x>; what should I watch next?", "Recommend shows for a fan of <x>."),
        (call("GET_tv__tv_id__recommendations", tv_id="<x.id>"),),
        avoid=_RELATED,
    ),
    Ask(
        ("tv",),
        ("Find shows similar to <x>.", "What shows are like <x>?"),
        (call("GET_tv__tv_id__similar", tv_id="<x.id>"),),
        avoid=_RELATED,
    ),
    Ask(("tv",), ("What do reviewers say about <x>?", "Show me reviews of <x>."), (call("GET_tv__tv_id__reviews", tv_id="<x.id>"),)),
    Ask(
        ("tv",),
        (
            "When did <x> first air?",
            "How many seasons does <x> have?",
            "Is <x> still in production?",
            "How many episodes of <x> are there?",
        ),
        (call("GET_tv__tv_id_", tv_id="<x.id>"),),
        reads={
            "When did <x> first air?": "first_air_date",
            "How many seasons does <x> have?": "number_of_seasons",
            "Is <x> still in production?": "in_production",
            "How many episodes of <x> are there?": "number_of_episodes",
        },
    ),
    Ask(
        ("tv",),
        ("Tell me about season <n> of <x>.", "What happens in season <n> of <x>?", "Show me <x> season <n>."),
        (call("GET_tv__tv_id__season__season_number_", tv_id="<x.id>", season_number="<n>"),),
        values={"n": (1, 2, 3)},
    ),
    Ask(
        ("tv",),
        ("Who was in season <n> of <x>?", "Who directed season <n> of <x>?", "Show me the cast of <x> season <n>."),
        (call("GET_tv__tv_id__season__season_number__credits", tv_id="<x.id>", season_number="<n>"),),
        values={"n": (1, 2, 3)},
    ),
    Ask(
        ("tv",),
        ("Show me images from season <n> of <x>.", "Find posters for <x> season <n>."),
        (call("GET_tv__tv_id__season__season_number__images", tv_id="<x.id>", season_number="<n>"),),
        values={"n": (1, 2)},
    ),
    Ask(
        ("tv",),
        ("What's episode <e> of <x> season <n> called?", "What happens in season <n>, episode <e> of <x>?", "Tell me about <x> S<n>E<e>."),
        (
            call(
                "GET_tv__tv_id__season__season_number__episode__episode_number_", tv_id="<x.id>", season_number="<n>", episode_number="<e>"
            ),
        ),
        values={"n": (1, 2), "e": (1, 2, 3, 4)},
    ),
    Ask(
        ("tv",),
        ("Who guest-starred in season <n>, episode <e> of <x>?", "Who was in <x> season <n> episode <e>?"),
        (
            call(
                "GET_tv__tv_id__season__season_number__episode__episode_number__credits",
                tv_id="<x.id>",
                season_number="<n>",
                episode_number="<e>",
            ),
        ),
        values={"n": (1, 2), "e": (1, 2, 3)},
    ),
    Ask(
        ("tv",),
        ("Show me stills from season <n>, episode <e> of <x>.", "Find images of <x> season <n> episode <e>."),
        (
            call(
                "GET_tv__tv_id__season__season_number__episode__episode_number__images",
                tv_id="<x.id>",
                season_number="<n>",
                episode_number="<e>",
            ),
        ),
        values={"n": (1, 2), "e": (1, 2, 3)},
    ),
    Ask(
        ("tv",),
        ("Who was in the last season of <x>?", "Show me the cast of the final season of <x>."),
        (
            call("GET_tv__tv_id_", tv_id="<x.id>"),
            call("GET_tv__tv_id__season__season_number__credits", tv_id="<x.id>", season_number="<@0>.number_of_seasons"),
        ),
        reads=dict.fromkeys(("Who was in the last season of <x>?", "Show me the cast of the final season of <x>."), "number_of_seasons"),
    ),
    Ask(
        ("tv",),
        ("Tell me about the last season of <x>.", "What happens in the final season of <x>?"),
        (
            call("GET_tv__tv_id_", tv_id="<x.id>"),
            call("GET_tv__tv_id__season__season_number_", tv_id="<x.id>", season_number="<@0>.number_of_seasons"),
        ),
        reads=dict.fromkeys(("Tell me about the last season of <x>.", "What happens in the final season of <x>?"), "number_of_seasons"),
    ),
    # a person
    Ask(
        ("person",),
        ("When was <x> born?", "Where is <x> from?", "Tell me about <x>.", "How old is <x>?"),
        (call("GET_person__person_id_", person_id="<x.id>"),),
        reads={
            "When was <x> born?": "birthday",
            "Where is <x> from?": "place_of_birth",
            "Tell me about <x>.": "biography",
            "How old is <x>?": "birthday",
        },
    ),
    Ask(
        ("person",),
        ("Show me photos of <x>.", "Find pictures of <x>.", "What does <x> look like?"),
        (call("GET_person__person_id__images", person_id="<x.id>"),),
    ),
    Ask(
        ("person",),
        ("What movies has <x> been in?", "Which films has <x> worked on?", "List <x's> movies.", "How many movies has <x> directed?"),
        (call("GET_person__person_id__movie_credits", person_id="<x.id>"),),
    ),
    Ask(
        ("person",),
        ("What TV shows has <x> been in?", "Which series has <x> appeared in?", "List <x's> TV work."),
        (call("GET_person__person_id__tv_credits", person_id="<x.id>"),),
    ),
    # studios, networks, collections
    Ask(
        ("company",),
        ("Where is <x> headquartered?", "Where is <x> based?", "Tell me about <x>."),
        (call("GET_company__company_id_", company_id="<x.id>"),),
        reads={"Where is <x> headquartered?": "headquarters", "Where is <x> based?": "headquarters", "Tell me about <x>.": "description"},
    ),
    Ask(
        ("company",),
        ("Show me <x's> logo.", "What does the logo of <x> look like?", "Find logos of <x>."),
        (call("GET_company__company_id__images", company_id="<x.id>"),),
    ),
    Ask(
        ("network",),
        ("Where is <x> headquartered?", "Tell me about <x>.", "Which country is <x> from?"),
        (call("GET_network__network_id_", network_id="<x.id>"),),
        reads={
            "Where is <x> headquartered?": "headquarters",
            "Tell me about <x>.": "headquarters",
            "Which country is <x> from?": "origin_country",
        },
    ),
    Ask(
        ("network",),
        ("Show me the logo of <x>.", "What does <x's> logo look like?"),
        (call("GET_network__network_id__images", network_id="<x.id>"),),
    ),
    Ask(
        ("collection",),
        ("Which movies are in <x>?", "What films make up <x>?", "Tell me about <x>."),
        (call("GET_collection__collection_id_", collection_id="<x.id>"),),
        reads={"Which movies are in <x>?": "parts", "What films make up <x>?": "parts", "Tell me about <x>.": "overview"},
    ),
    Ask(
        ("collection",),
        ("Show me artwork for <x>.", "Find posters of <x>."),
        (call("GET_collection__collection_id__images", collection_id="<x.id>"),),
    ),
    # lists
    Ask((), ("What movies are popular right now?", "Which films are most popular at the moment?"), (call("GET_movie_popular"),)),
    Ask((), ("What are the best-rated movies?", "Show me the top-rated films."), (call("GET_movie_top_rated"),)),
    Ask((), ("What's in theaters now?", "Which movies are showing in cinemas?"), (call("GET_movie_now_playing"),)),
    Ask((), ("What's the newest movie added to TMDB?", "Which movie was added to TMDB most recently?"), (call("GET_movie_latest"),)),
    Ask((), ("What shows are on the air now?", "Which series are currently airing?"), (call("GET_tv_on_the_air"),)),
    Ask((), ("What TV shows are popular right now?", "Which series are most popular at the moment?"), (call("GET_tv_popular"),)),
    Ask((), ("What are the best-rated TV shows?", "Show me the top-rated series."), (call("GET_tv_top_rated"),)),
    Ask((), ("Who are the most popular stars right now?", "Which actors are most popular at the moment?"), (call("GET_person_popular"),)),
    Ask(
        (),
        ("What's trending on TV today?", "Which shows are trending today?"),
        (call("GET_trending__media_type___time_window_", media_type='"tv"', time_window='"day"'),),
    ),
    Ask(
        (),
        ("What TV is trending this week?", "Which shows are trending this week?"),
        (call("GET_trending__media_type___time_window_", media_type='"tv"', time_window='"week"'),),
    ),
)

LEXICON = Lexicon("tmdb", NOUNS, ASKS)
