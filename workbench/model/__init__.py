"""The document organization model: levels of clusters over an unlimited tail or a finite rest."""

from workbench.model.errors import OrganizationError
from workbench.model.organization import Organization, natural_key

__all__ = ["Organization", "OrganizationError", "natural_key"]
