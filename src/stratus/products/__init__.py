"""Products. Importing this package registers every product's tables, API actions and console pages."""

from stratus.products import actiontrail, ram, resourcecenter  # noqa: F401
from stratus.products import vpc, ecs  # noqa: F401,E402  (ECS depends on VPC's tables)
