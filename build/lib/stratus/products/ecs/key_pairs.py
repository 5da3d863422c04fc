"""SSH key pairs: create (the private key is shown once and never kept), import, list, delete, bind.

A key pair is known by its name in a region, like on the real cloud; instances refer to it by name.
Created keys are derived from the key pair's id and the server seed, so a replayed run hands out
the same key material, yet nothing but the public half is ever stored.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
import textwrap
from typing import Any

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import dependency_violation, invalid_parameter, not_found
from stratus.products.ecs.models import KEY_PAIR_TYPE, Instance, KeyPair
from stratus.products.ecs.params import TagSpec, check_name, check_tags, id_list, name_matches, tags_match, tags_view

PRODUCT = "ecs"
KEY_TYPES = ("ssh-rsa", "ssh-ed25519")


# --- key material --------------------------------------------------------------------------


def _ssh_string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _read_ssh_string(blob: bytes, offset: int) -> tuple[bytes, int]:
    if offset + 4 > len(blob):
        raise ValueError("truncated")
    (length,) = struct.unpack(">I", blob[offset:offset + 4])
    end = offset + 4 + length
    if end > len(blob):
        raise ValueError("truncated")
    return blob[offset + 4:end], end


def fingerprint(blob: bytes) -> str:
    """The MD5 fingerprint ssh-keygen prints with ``-E md5`` (colon-separated hex)."""
    digest = hashlib.md5(blob).hexdigest()  # noqa: S324  (the format the cloud shows, not a security check)
    return ":".join(digest[i:i + 2] for i in range(0, 32, 2))


def generate_key_material(seed: int, key_pair_id: str) -> tuple[str, str, str]:
    """(public key line, private key PEM, fingerprint) of a 2048-bit RSA-shaped key derived from the id."""
    stream = hashlib.shake_256(f"stratus-keypair:{seed}:{key_pair_id}".encode()).digest(1600)
    modulus = bytes([stream[0] | 0x80]) + stream[1:256]
    blob = _ssh_string(b"ssh-rsa") + _ssh_string(b"\x01\x00\x01") + _ssh_string(b"\x00" + modulus)
    public = f"ssh-rsa {base64.b64encode(blob).decode()}"
    der = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + modulus + b"\x02\x03\x01\x00\x01" + stream[256:1447]
    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
    private = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    return public, private, fingerprint(blob)


def parse_public_key(text: str) -> tuple[str, str]:
    """Validate an OpenSSH public key line; return (normalised ``type base64`` line, fingerprint)."""
    message = ("The specified PublicKeyBody is invalid. It must be an OpenSSH public key such as "
               "'ssh-rsa AAAAB3NzaC1yc2E... comment' or 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5... comment'.")
    parts = text.strip().split()
    if len(parts) < 2 or parts[0] not in KEY_TYPES:
        raise invalid_parameter("PublicKeyBody", message)
    try:
        blob = base64.b64decode(parts[1], validate=True)
        key_type, offset = _read_ssh_string(blob, 0)
        if key_type.decode() != parts[0]:
            raise ValueError("type mismatch")
        if parts[0] == "ssh-rsa":
            exponent, offset = _read_ssh_string(blob, offset)
            modulus, offset = _read_ssh_string(blob, offset)
            if not exponent or len(modulus.lstrip(b"\x00")) * 8 < 1024:
                raise invalid_parameter("PublicKeyBody", "RSA public keys must be at least 1024 bits long.")
        else:
            key, offset = _read_ssh_string(blob, offset)
            if len(key) != 32:
                raise ValueError("ed25519 keys are 32 bytes")
        if offset != len(blob):
            raise ValueError("trailing data")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid_parameter("PublicKeyBody", message) from None
    return f"{parts[0]} {parts[1]}", fingerprint(blob)


# --- helpers other modules call ------------------------------------------------------------


def key_pair_by_name(ctx: CallContext, name: str) -> KeyPair:
    row = ctx.db.execute(ctx.scoped(KeyPair).where(KeyPair.name == name)).scalars().first()
    if row is None:
        raise not_found("key pair", name)
    ctx.reference(KEY_PAIR_TYPE.type_name, row.id)
    return row


def _bound_instances(ctx: CallContext, name: str) -> list[str]:
    rows = ctx.db.execute(ctx.scoped(Instance).where(Instance.key_pair_name == name).order_by(Instance.id)).scalars()
    return [row.id for row in rows]


def _new_key_pair(ctx: CallContext, name: str | None, tags: list[TagSpec]) -> KeyPair:
    name = check_name("KeyPairName", name)
    if not name:
        raise invalid_parameter("KeyPairName", "The KeyPairName parameter is required.")
    if ctx.count(KeyPair, KeyPair.name == name):
        raise invalid_parameter("KeyPairName", f"A key pair named {name!r} already exists in this region.")
    ctx.check_quota("ecs.key_pairs", ctx.count(KeyPair))
    row = KeyPair(id=ctx.new_id("kp"), account_id=ctx.principal.account_id, region_id=ctx.region, name=name,
                  tags=check_tags(tags), created_at=ctx.now, fingerprint="", public_key="")
    ctx.reference(KEY_PAIR_TYPE.type_name, row.id)
    return row


def _view(row: KeyPair) -> dict[str, Any]:
    return {"KeyPairId": row.id, "KeyPairName": row.name, "KeyPairFingerPrint": row.fingerprint,
            "CreationTime": format_time(row.created_at), "Tags": tags_view(row.tags)}


# --- actions -------------------------------------------------------------------------------


class CreateKeyPairRequest(ApiRequest):
    """No ClientToken: a replayed answer would have to keep the private key, which is never stored."""

    KeyPairName: str = Field(min_length=1, max_length=128)
    Tag: list[TagSpec] = Field(default_factory=list)


@action(PRODUCT, "CreateKeyPair", rw="Write", request=CreateKeyPairRequest)
def create_key_pair(ctx: CallContext, req: CreateKeyPairRequest) -> dict[str, Any]:
    """Create an RSA key pair; the private key is in this response only and is never stored."""
    row = _new_key_pair(ctx, req.KeyPairName, req.Tag)
    public, private, fp = generate_key_material(ctx.runtime.settings.seed, row.id)
    row.public_key, row.fingerprint = public, fp
    ctx.db.add(row)
    return {"KeyPairId": row.id, "KeyPairName": row.name, "KeyPairFingerPrint": fp, "PrivateKeyBody": private}


class ImportKeyPairRequest(ApiRequest):
    KeyPairName: str = Field(min_length=1, max_length=128)
    PublicKeyBody: str = Field(min_length=1, max_length=8192)
    Tag: list[TagSpec] = Field(default_factory=list)


@action(PRODUCT, "ImportKeyPair", rw="Write", request=ImportKeyPairRequest)
def import_key_pair(ctx: CallContext, req: ImportKeyPairRequest) -> dict[str, Any]:
    """Import the public half of a key you generated yourself (ssh-rsa or ssh-ed25519)."""
    public, fp = parse_public_key(req.PublicKeyBody)
    row = _new_key_pair(ctx, req.KeyPairName, req.Tag)
    row.public_key, row.fingerprint = public, fp
    ctx.db.add(row)
    return {"KeyPairId": row.id, "KeyPairName": row.name, "KeyPairFingerPrint": fp}


class DescribeKeyPairsRequest(ListRequest):
    KeyPairName: str | None = Field(None, description="Exact name, or a pattern with * wildcards")
    KeyPairFingerPrint: str | None = None
    Tag: list[TagSpec] = Field(default_factory=list)
    PageSize: int = Field(10, ge=1, le=50)


@action(PRODUCT, "DescribeKeyPairs", rw="Read", request=DescribeKeyPairsRequest)
def describe_key_pairs(ctx: CallContext, req: DescribeKeyPairsRequest) -> dict[str, Any]:
    """Key pairs of this region, newest first, with name (wildcard), fingerprint and tag filters."""
    rows = ctx.db.execute(ctx.scoped(KeyPair).order_by(KeyPair.created_at.desc(), KeyPair.id)).scalars()
    items = [_view(row) for row in rows
             if name_matches(req.KeyPairName, row.name)
             and (not req.KeyPairFingerPrint or row.fingerprint == req.KeyPairFingerPrint)
             and tags_match(row.tags, req.Tag)]
    return page(items, req, "KeyPairs")


class DeleteKeyPairsRequest(ApiRequest):
    KeyPairNames: str | list[str] = Field(description='A JSON array of names: ["key1", "key2"] (at most 100)')


@action(PRODUCT, "DeleteKeyPairs", rw="Write", request=DeleteKeyPairsRequest)
def delete_key_pairs(ctx: CallContext, req: DeleteKeyPairsRequest) -> dict[str, Any]:
    """Delete key pairs by name; one still bound to an instance blocks the whole call."""
    names = id_list("KeyPairNames", req.KeyPairNames) or []
    if not names:
        raise invalid_parameter("KeyPairNames", "KeyPairNames must list at least one key pair name.")
    if len(names) > 100:
        raise invalid_parameter("KeyPairNames", "At most 100 key pairs can be deleted at a time.")
    rows = [key_pair_by_name(ctx, name) for name in dict.fromkeys(names)]
    for row in rows:
        bound = _bound_instances(ctx, row.name)
        if bound:
            raise dependency_violation(f"The key pair {row.name} is bound to instance(s) {', '.join(bound[:5])}; "
                                       "unbind it (DetachKeyPair) before deleting it.")
    for row in rows:
        ctx.db.delete(row)
    return {}


class BindKeyPairRequest(ApiRequest):
    KeyPairName: str = Field(min_length=1, max_length=128)
    InstanceIds: str | list[str] = Field(description='A JSON array of instance ids (at most 50)')


def _bind(ctx: CallContext, req: BindKeyPairRequest, attach: bool) -> dict[str, Any]:
    key = key_pair_by_name(ctx, req.KeyPairName)
    ids = id_list("InstanceIds", req.InstanceIds) or []
    if not ids or len(ids) > 50:
        raise invalid_parameter("InstanceIds", "InstanceIds must list 1 to 50 instance ids.")
    results = []
    for instance_id in ids:
        instance = ctx.get(Instance, instance_id)
        code, message = "200", "successful"
        if attach and instance.os_type == "windows":
            code, message = "InvalidParameter.KeyPairName", "Key pairs cannot be bound to Windows instances."
        elif instance.status in ("Pending", "Starting", "Stopping", "Rebooting"):
            code, message = "IncorrectInstanceStatus", f"The instance is {instance.status}; wait until it is Running or Stopped."
        elif not attach and instance.key_pair_name != key.name:
            code, message = "InvalidParameter.KeyPairName", f"The key pair {key.name} is not bound to this instance."
        else:
            instance.key_pair_name = key.name if attach else None
        results.append({"InstanceId": instance_id, "Success": code == "200", "Code": code, "Message": message})
    failed = sum(1 for r in results if not r["Success"])
    return {"KeyPairName": key.name, "TotalCount": len(results), "FailCount": failed, "Results": results}


@action(PRODUCT, "AttachKeyPair", rw="Write", request=BindKeyPairRequest)
def attach_key_pair(ctx: CallContext, req: BindKeyPairRequest) -> dict[str, Any]:
    """Bind a key pair to Linux instances (takes effect at the next start, like the real cloud)."""
    return _bind(ctx, req, attach=True)


@action(PRODUCT, "DetachKeyPair", rw="Write", request=BindKeyPairRequest)
def detach_key_pair(ctx: CallContext, req: BindKeyPairRequest) -> dict[str, Any]:
    """Unbind a key pair from instances."""
    return _bind(ctx, req, attach=False)
