"""The admin's three shipped roles (issue 35), as Django groups that `load_defaults` creates
and keeps up to date: who drafts rule sets, who publishes them, who only looks.

A rule set decides every new assessment only once it is published, so drafting and
publishing are separate rights (`decider.publish_ruleset`). Cost figures, providers, their
prices and per-token prices apply to the next assessment scored, as publishing does, so they
change the same way (issue 49, decider/figure_changes.py): an editor's edit waits as a
figure change until a publisher makes it current. Give an account `is_staff` and one group.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import Group, Permission

from decider.engine.text import Text

# What each may do, by model of the decider app. "view" is every role's.
DRAFTED = ("ruleset", "criterion", "option", "constraint")  # the rows of a draft
LIVE = ("assumption", "provider", "providerprice", "tokenprice")  # figures that apply at once


@dataclass(frozen=True)
class Role:
    name: str  # the group's name
    title: Text
    description: Text
    may: tuple[str, ...]  # permission codenames of the decider app, beyond viewing


def _changes(models: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{verb}_{model}" for model in models for verb in ("add", "change", "delete"))


# Changing a live figure proposes a change (a FigureChange); publishing it is the right below.
EDITING = (*_changes(DRAFTED), *_changes(LIVE))
ROLES = (
    Role(
        name="editors",
        title=Text(en="Editors", zh="编辑"),
        description=Text(
            en="Make and edit draft rule sets (criteria, weights, answer options, "
            "constraints), import them as drafts and preview their impact; propose changes "
            "to the cost figures, providers and prices. They cannot publish either: the "
            "live figures stay as they are until a publisher makes a change current.",
            zh="创建和编辑规则集草稿（评估项、权重、答案选项、约束），以草稿形式导入，"
            "并预览其影响；可提出对成本数据、云厂商和价格的修改。两者都不能发布："
            "在发布者使修改生效之前，正在生效的数据保持不变。",
        ),
        may=EDITING,
    ),
    Role(
        name="publishers",
        title=Text(en="Publishers", zh="发布者"),
        description=Text(
            en="Everything editors do, and publish a draft after its impact preview; make "
            "proposed changes to the cost figures and prices current (never their own when "
            "a second pair of eyes is required; without it, their own edits apply at once).",
            zh="拥有编辑的全部权限，并可在查看影响预览后发布草稿；可使他人提出的成本数据和"
            "价格修改生效（要求双人复核时不能发布自己的修改；不要求时，自己的修改立即生效）。",
        ),
        may=(*EDITING, "publish_ruleset"),
    ),
    Role(
        name="viewers",
        title=Text(en="Viewers", zh="只读"),
        description=Text(
            en="Read everything in the admin: rule sets and their history, figures, "
            "providers, assessments. Change nothing.",
            zh="可查看管理后台中的全部内容：规则集及其历史、成本数据、云厂商、评估。"
            "不能做任何修改。",
        ),
        may=(),
    ),
)
BY_NAME = {role.name: role for role in ROLES}


def roles_sync() -> list[str]:
    """Create the groups, or set their permissions back to what the release ships; the names
    of the groups created or changed."""
    app = Permission.objects.filter(content_type__app_label="decider")
    viewing = set(app.filter(codename__startswith="view_").values_list("pk", flat=True))
    touched = []
    for role in ROLES:
        wanted = viewing | set(app.filter(codename__in=role.may).values_list("pk", flat=True))
        found = set(app.filter(codename__in=role.may).values_list("codename", flat=True))
        missing = set(role.may) - found
        if missing:  # a model renamed without this list: fail loudly, not with a lesser role
            raise LookupError(f"{role.name}: no such permission {sorted(missing)}")
        group, created = Group.objects.get_or_create(name=role.name)
        if created or set(group.permissions.values_list("pk", flat=True)) != wanted:
            group.permissions.set(wanted)
            touched.append(role.name)
    return touched
