"""VPC: virtual private clouds, vSwitches, route tables, EIPs and NAT gateways."""

from stratus.products.vpc import models  # noqa: F401
from stratus.products.vpc import dependents, eips, nat_gateways, route_tables, vpcs, vswitches  # noqa: F401
from stratus.products.vpc import console  # noqa: F401
