"""The skills a model works with, read from the sandbox's `skills/` folder.

Progressive disclosure: the system prompt lists every skill's name and description; the model
activates one with the `activate_skill` tool and gets its SKILL.md body and the list of its
files, which it reads with `read_file` when a step asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from agents.errors import AgentError

SKILLS_FOLDER = "skills"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: str  # relative to the repository root
    body: str
    files: tuple[str, ...]  # the skill's other files, relative to the repository root


def load_skills(root: Path) -> dict[str, Skill]:
    skills = {}
    for skill_md in sorted((root / SKILLS_FOLDER).glob("*/SKILL.md")):
        frontmatter, body = _split(skill_md)
        folder = skill_md.parent
        files = sorted(
            str(p.relative_to(root))
            for p in folder.rglob("*")
            if p.is_file() and p != skill_md and "__pycache__" not in p.parts
        )
        skill = Skill(
            name=str(frontmatter.get("name", folder.name)),
            description=" ".join(str(frontmatter.get("description", "")).split()),
            folder=str(folder.relative_to(root)),
            body=body.strip(),
            files=tuple(files),
        )
        skills[skill.name] = skill
    return skills


def catalog(skills: dict[str, Skill]) -> str:
    return "\n".join(f"- {s.name}: {s.description}" for s in skills.values())


def activation(skill: Skill) -> str:
    listing = "\n".join(f"- {path}" for path in skill.files) or "- (none)"
    return (
        f"# Skill {skill.name} ({skill.folder}/SKILL.md)\n\n{skill.body}\n\n"
        f"Files of this skill (open them with read_file when a step asks):\n{listing}\n"
    )


def _split(skill_md: Path) -> tuple[dict, str]:
    text = skill_md.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise AgentError(f"{skill_md}:1: a SKILL.md starts with --- frontmatter ---")
    head, body = text[4:].split("\n---\n", 1)
    try:
        frontmatter = yaml.safe_load(head) or {}
    except yaml.YAMLError as error:
        raise AgentError(f"{skill_md}: frontmatter is not YAML: {error}") from None
    return frontmatter, body
