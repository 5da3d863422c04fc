"""ECS: instances, the create wizard, disks, snapshots, images, key pairs, security groups."""

from stratus.products.ecs import models  # noqa: F401
from stratus.products.ecs import security_groups, disks, disk_snapshots  # noqa: F401
from stratus.products.ecs import catalogs, regions, images, key_pairs, instances, instance_billing  # noqa: F401
from stratus.products.ecs import storage_console, security_console  # noqa: F401
from stratus.products.ecs import console  # noqa: F401
