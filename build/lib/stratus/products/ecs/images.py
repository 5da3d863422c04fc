"""Images: the public catalogue (code) and custom images (rows) made from instances.

A custom image is Creating for a while, then Available; only then can RunInstances use it. Public
images cannot be deleted or modified; custom images can, even while instances still run from
them (the real cloud keeps the instances' system disks, so nothing breaks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import func, select

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import forbidden, incorrect_status, invalid_parameter, missing_parameter
from stratus.products.ecs.catalogs import PUBLIC_IMAGE_BY_ID, PUBLIC_IMAGES, PublicImage
from stratus.products.ecs.models import IMAGE_LIFECYCLE, IMAGE_TYPE, Disk, Image, Instance
from stratus.products.ecs.params import (
    TagSpec, check_description, check_name, check_tags, id_list, name_matches, tags_match, tags_view,
)

PRODUCT = "ecs"


@dataclass(frozen=True)
class ImageInfo:
    """What launching from an image needs to know, whether the image is public or custom."""

    id: str
    name: str
    os_name: str
    os_type: str
    platform: str
    min_disk_gib: int
    owner: str  # system | self


def platform_of(os_name: str, os_type: str) -> str:
    for image in PUBLIC_IMAGES:
        if os_name.startswith(image.platform):
            return image.platform
    return "Windows Server" if os_type == "windows" else "Others Linux"


def _public_info(image: PublicImage) -> ImageInfo:
    return ImageInfo(image.id, image.name, image.os_name, image.os_type, image.platform, image.min_disk_gib, "system")


def resolve_image(ctx: CallContext, image_id: str) -> ImageInfo:
    """A launchable image: any public image, or one of the caller's custom images once Available."""
    public = PUBLIC_IMAGE_BY_ID.get(image_id)
    if public is not None:
        return _public_info(public)
    image = ctx.get(Image, image_id)
    if image.status != "Available":
        raise incorrect_status("image", image.id, image.status, "Available")
    return ImageInfo(image.id, image.name, image.os_name, image.os_type, platform_of(image.os_name, image.os_type),
                     image.size_gb, "self")


def system_disk_size(ctx: CallContext, instance: Instance) -> int | None:
    disk = ctx.db.execute(ctx.scoped(Disk).where(Disk.instance_id == instance.id, Disk.disk_type == "system")).scalars().first()
    return disk.size_gb if disk else None


# --- views ---------------------------------------------------------------------------------


def _public_view(image: PublicImage, created: str) -> dict[str, Any]:
    return {
        "ImageId": image.id, "ImageName": image.name, "ImageOwnerAlias": "system", "Description": "",
        "OSName": image.os_name, "OSNameEn": image.os_name, "OSType": image.os_type, "Platform": image.platform,
        "Architecture": image.architecture, "Size": image.min_disk_gib, "Status": "Available", "Progress": "100%",
        "IsPublic": True, "IsSupportCloudinit": image.os_type == "linux", "CreationTime": created,
        "SourceInstanceId": None, "Usage": "instance", "Tags": [],
    }


def _custom_view(ctx: CallContext, image: Image) -> dict[str, Any]:
    in_use = ctx.count(Instance, Instance.image_id == image.id)
    return {
        "ImageId": image.id, "ImageName": image.name, "ImageOwnerAlias": "self", "Description": image.description,
        "OSName": image.os_name, "OSNameEn": image.os_name, "OSType": image.os_type,
        "Platform": platform_of(image.os_name, image.os_type), "Architecture": "x86_64", "Size": image.size_gb,
        "Status": image.status, "Progress": "100%" if image.status == "Available" else "50%", "IsPublic": False,
        "IsSupportCloudinit": image.os_type == "linux", "CreationTime": format_time(image.created_at),
        "SourceInstanceId": image.source_instance_id, "Usage": "instance" if in_use else "none",
        "Tags": tags_view(image.tags),
    }


PUBLIC_RELEASE_TIME = "2025-06-29T00:00:00.000Z"

# --- actions -------------------------------------------------------------------------------


class CreateImageRequest(CreateRequest):
    InstanceId: str | None = None
    ImageName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)
    Tag: list[TagSpec] = Field(default_factory=list)


@action(PRODUCT, "CreateImage", rw="Write", request=CreateImageRequest)
def create_image(ctx: CallContext, req: CreateImageRequest) -> dict[str, Any]:
    """Create a custom image from an instance's system disk (Creating, then Available)."""
    if not req.InstanceId:
        raise missing_parameter("InstanceId")
    instance = ctx.get(Instance, req.InstanceId)
    if instance.status not in ("Running", "Stopped"):
        raise incorrect_status("instance", instance.id, instance.status, "Running or Stopped")
    name = check_name("ImageName", req.ImageName)
    if name.lower().startswith(("aliyun", "acs:")):
        raise invalid_parameter("ImageName", "The specified ImageName cannot start with aliyun or acs:.")
    if name and ctx.count(Image, Image.name == name):
        raise invalid_parameter("ImageName", f"An image named {name!r} already exists in this region.")
    ctx.check_quota("ecs.images", ctx.count(Image))
    image_id = ctx.new_id("m")
    size = system_disk_size(ctx, instance)
    if size is None:
        public = PUBLIC_IMAGE_BY_ID.get(instance.image_id)
        size = public.min_disk_gib if public else 40
    image = Image(id=image_id, account_id=ctx.principal.account_id, region_id=ctx.region, name=name or image_id,
                  description=check_description(req.Description), tags=check_tags(req.Tag), created_at=ctx.now,
                  source_instance_id=instance.id, os_name=instance.os_name, os_type=instance.os_type, size_gb=size,
                  status="Creating")
    IMAGE_LIFECYCLE.begin(image, "Creating", ctx.now)
    ctx.db.add(image)
    ctx.reference(IMAGE_TYPE.type_name, image_id)
    return {"ImageId": image_id}


class DescribeImagesRequest(ListRequest):
    ImageId: str | list[str] | None = None
    ImageName: str | None = None
    ImageOwnerAlias: Literal["system", "self", "others", "marketplace"] | None = None
    Status: str | None = Field(None, description="Comma-separated: Creating, Available (default: every status)")
    OSType: Literal["linux", "windows"] | None = None
    Platform: str | None = None
    InstanceType: str | None = None
    Tag: list[TagSpec] = Field(default_factory=list)
    Keyword: str | None = Field(None, max_length=128)


@action(PRODUCT, "DescribeImages", rw="Read", request=DescribeImagesRequest)
def describe_images(ctx: CallContext, req: DescribeImagesRequest) -> dict[str, Any]:
    """Public images and the caller's custom images (custom first, newest first), with filters."""
    ids = id_list("ImageId", req.ImageId)
    statuses = id_list("Status", req.Status)
    items: list[dict[str, Any]] = []
    if req.ImageOwnerAlias in (None, "self"):
        rows = ctx.db.execute(ctx.scoped(Image).order_by(Image.created_at.desc(), Image.id)).scalars()
        items.extend(_custom_view(ctx, row) for row in rows)
    if req.ImageOwnerAlias in (None, "system") and not req.Tag:
        items.extend(_public_view(image, PUBLIC_RELEASE_TIME) for image in PUBLIC_IMAGES)
    keyword = (req.Keyword or "").lower()
    items = [
        item for item in items
        if (ids is None or item["ImageId"] in ids)
        and name_matches(req.ImageName, item["ImageName"])
        and (statuses is None or item["Status"] in statuses)
        and (req.OSType is None or item["OSType"] == req.OSType)
        and (req.Platform is None or item["Platform"] == req.Platform)
        and (not keyword or keyword in item["ImageId"].lower() or keyword in item["ImageName"].lower()
             or keyword in item["OSName"].lower())
        and (not req.Tag or tags_match({t["TagKey"]: t["TagValue"] for t in item["Tags"]}, req.Tag))
    ]
    return page(items, req, "Images")


class ImageIdRequest(ApiRequest):
    ImageId: str = Field(min_length=1)


class DeleteImageRequest(ImageIdRequest):
    Force: bool = False


def _own_image(ctx: CallContext, image_id: str) -> Image:
    if image_id in PUBLIC_IMAGE_BY_ID:
        raise forbidden(f"The image {image_id} is a public image; only custom images that you own can be changed or deleted.")
    return ctx.get(Image, image_id)


@action(PRODUCT, "DeleteImage", rw="Write", request=DeleteImageRequest)
def delete_image(ctx: CallContext, req: DeleteImageRequest) -> dict[str, Any]:
    """Delete a custom image. Instances created from it keep running: their disks are their own."""
    image = _own_image(ctx, req.ImageId)
    if image.status == "Creating":
        raise incorrect_status("image", image.id, image.status, "Available")
    ctx.db.delete(image)
    return {}


class ModifyImageAttributeRequest(ImageIdRequest):
    ImageName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


@action(PRODUCT, "ModifyImageAttribute", rw="Write", request=ModifyImageAttributeRequest)
def modify_image_attribute(ctx: CallContext, req: ModifyImageAttributeRequest) -> dict[str, Any]:
    """Rename a custom image or change its description."""
    image = _own_image(ctx, req.ImageId)
    if req.ImageName is not None:
        name = check_name("ImageName", req.ImageName)
        taken = ctx.db.execute(select(func.count()).select_from(Image).where(
            Image.account_id == ctx.principal.account_id, Image.region_id == ctx.region, Image.name == name,
            Image.id != image.id)).scalar_one()
        if taken:
            raise invalid_parameter("ImageName", f"An image named {name!r} already exists in this region.")
        image.name = name or image.id
    if req.Description is not None:
        image.description = check_description(req.Description)
    return {}

