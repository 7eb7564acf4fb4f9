"""The streamed statistics of a deal run: the run read part by part (``run_reader``) and folded
into integer histograms (``part_histograms``, laid out in ``histograms``), the choice rules
compared on a second read (``choice_comparison``), both driven by ``aggregate``; the fitted
policies as report rules (``policies``)."""
