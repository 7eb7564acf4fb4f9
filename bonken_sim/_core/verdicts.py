"""The verdicts of the core's two walks over recorded plays, written once: the replay of a
whole record (``replay.py``) and the walk of a seat's view before a decision (``decide.py``).
A code names one broken rule wherever it is found; the engine turns it into a message
(``engine.play``, ``engine.decide_play``).
"""

OK = 0  # every play checked: nothing broken
NOT_A_CARD = 1  # a view's play is a pass in a trick contract, or a code that is no card
SEEN = 2  # a view's card played twice, or played and still in the deciding seat's hand
WRONG_SEAT = 3  # a view's play by a seat whose turn it was not
NOT_LEGAL = 4  # a card the seat could not play there
BAD_PASS = 5  # a Domino pass by a seat that could play
DEAL_OVER = 6  # a view's plays end the deal: nothing is left to decide
NOT_TO_ACT = 7  # after a view's plays another seat acts
HAND_SIZE = 8  # the deciding seat's hand does not hold 13 less the cards it played
NO_DEAL = 9  # no deal of the unseen cards fits what the seats showed (an expert's search)
NOT_IN_HAND = 10  # a record's card the seat to act does not hold
TOO_MANY = 11  # a record's plays continue after the deal is over
TOO_FEW = 12  # a record's plays stop before the rules decide the deal
