"""Which measure to trust: the methods the papers use to judge evaluation measures on a campaign's results.

- :mod:`~workbench.analysis.meta.samples`: how topic sets are drawn (one seeded index matrix, drawn up front);
- :mod:`~workbench.analysis.meta.stability`: Buckley and Voorhees's stability method (SIGIR 2000): minority rate
  against the proportion of ties;
- :mod:`~workbench.analysis.meta.swap`: Voorhees and Buckley's swap method (SIGIR 2002): swap rate against the
  difference, the difference required at 95% confidence and the sensitivity;
- :mod:`~workbench.analysis.meta.bootstrap`: Sakai's bootstrap discriminative power (SIGIR 2006): achieved
  significance levels of every pair of systems and the estimated difference required;
- :mod:`~workbench.analysis.meta.topic_sets`: Sakai's topic set size design (power- and CI-based);
- :mod:`~workbench.analysis.meta.trust`: all of them at once, in the form of Sakai's Table 1 (P-measure, SIGIR
  2006).

Every function takes tidy results (``system, topic, measure, value``, as :meth:`Campaign.evaluate
<workbench.data.campaign.Campaign.evaluate>` returns them), checked by
:func:`~workbench.analysis.results.score_cube`, and is exported by :mod:`workbench.analysis`. A lower-is-better
measure is negated before comparing systems (:meth:`~workbench.analysis.results.ScoreCube.oriented`); differences
are reported in the measure's own units.
"""

__all__: list[str] = []
