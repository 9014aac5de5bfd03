"""workbench: evaluate ranking, filtering, clustering and document organization."""
