"""Every id and count of the game, written once: contract variants, contracts, kinds, strategy
tiers, strategy families, the Domino pass code and the beer card.

The kernels read these as compile-time constants; the Python side (``rules.names``: the
Contract, Strategy and Variant names, ``engine``) takes its values from here, so
a variant's or a tier's number is never written twice.
"""

# Contract variants (docs/ENGINE.md): the seven negative contracts by variant id, then
# troeven with each trump option. A variant's id is also its row in the ruleset table.
BUKKEN, HARTENJAGEN, HERENBOEREN, VROUWEN, HARTENHEER, LAATSTE_SLAG, DOMINO = range(7)
TROEVEN_C, TROEVEN_D, TROEVEN_H, TROEVEN_S, TROEVEN_NT = range(7, 12)
N_VARIANTS = 12
N_NEGATIVE = 7  # variant ids 0..6 are the negative contracts
N_TRUMP_OPTIONS = N_VARIANTS - N_NEGATIVE  # troeven's five: C, D, H, S and no-trump

# Contracts: a negative contract's id is its variant id; every troeven variant is contract 7.
TROEVEN = 7

# What a variant is played as (the ruleset table's F_KIND).
KIND_NEGATIVE, KIND_DOMINO, KIND_TROEVEN = 0, 1, 2

# Card-play strategy tiers, chosen per seat (docs/ENGINE.md), by id.
STRAT_RANDOM, STRAT_BASIC, STRAT_ADVANCED, STRAT_EXPERT = 0, 1, 2, 3
STRATEGY_NAMES = ("random", "basic", "advanced", "expert")

# A seat's strategy code in a kernel's strategy array: the tier in the low byte; an expert
# seat carries its search settings above it (0 = the default): K, the deals it samples per
# decision, in bits 8-23, and E + 1, solving exactly once E or fewer tricks remain, in
# bits 24-31; I, the candidate deals it draws per sample to weigh them by the plays seen
# (0: no inference, ``infer.py``), in bits 32-39; and N + 1, the noise in percent of its
# model of the others' play, in bits 40-47. Codes of the other tiers are their tier ids.
TIER_MASK = 0xFF
EXPERT_SAMPLES_SHIFT = 8
EXPERT_SAMPLES_MAX = 0xFFFF
EXPERT_EXACT_SHIFT = 24
EXPERT_EXACT_MAX = 13
EXPERT_INFER_SHIFT = 32
EXPERT_INFER_MAX = 32
EXPERT_NOISE_SHIFT = 40
EXPERT_NOISE_MAX = 100
DEFAULT_EXPERT_SAMPLES = 16
DEFAULT_EXPERT_EXACT_TRICKS = 0
DEFAULT_EXPERT_INFER = 0
DEFAULT_EXPERT_NOISE = 10

# Strategy families: which strategy code a trick loop carries (one compiled build each).
FAMILY_RANDOM = 0  # every seat random: no strategy code at all
FAMILY_NEGATIVE = 1  # bukken, hartenjagen, herenboeren, vrouwen, hartenheer (and the beer card)
FAMILY_LAATSTE = 2
FAMILY_TROEVEN = 3

# Suits and cards: card c = 13 * suit + rank; suits in the order clubs, diamonds, hearts, spades.
CLUBS, DIAMONDS, HEARTS_SUIT, SPADES = range(4)
N_CARDS = 52
PASS = N_CARDS  # the trace code of a Domino pass (one past the last card)
TRACE_LEN = 256  # the most plays of a deal: 52 cards plus at most 3 passes per card laid

# The beer card ("bierkaart"): a house-rules negative trick contract that takes Domino's slot
# (variant id 6) when a ruleset plays it; whoever takes the 7 of diamonds scores.
BEER_CARD_NAME = "bierkaart"
BEER_CARD = 13 * DIAMONDS + 5  # the 7 of diamonds

# Every ace and every 2: under the house rule domino_ace_or_two a player needs one of them to
# choose Domino or to double in it.
ACES_AND_TWOS = sum(1 << (13 * s + r) for s in range(4) for r in (0, 12))
