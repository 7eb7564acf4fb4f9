"""The sections of a deal run's page: the guide and the three sections in order
(``deal_page``): what each contract costs, what choosing is worth, whether doubling pays;
each with its computed findings."""
