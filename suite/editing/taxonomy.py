"""A suite's categories and phenomena: finding or creating them, renaming and merging them.

Renaming and merging touch only categories and phenomena (labels do not depend on them), so nothing is
relabelled; each writes one history entry for the suite, not one per item it affects.
"""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from store import Database
from store.models import Category, Item, Phenomenon
from suite.editing.history import Change, check_author, record
from suite.errors import TsqeError
from suite.suites import find_suite


def _name(text: str, what: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise TsqeError(f"a {what} needs a name")
    if len(name) > 200:
        raise TsqeError(f"a {what} name may be at most 200 characters long")
    return name


def phenomenon_id(session: Session, suite_id: int, category: str, phenomenon: str) -> int:
    """The id of ``phenomenon`` in ``category``, creating either when new."""
    category, phenomenon = _name(category, "category"), _name(phenomenon, "phenomenon")
    category_id = session.scalar(select(Category.id).where(Category.suite_id == suite_id, Category.name == category))
    if category_id is None:
        new_category = Category(suite_id=suite_id, name=category)
        session.add(new_category)
        session.flush()
        category_id = new_category.id
    found = session.scalar(select(Phenomenon.id).where(Phenomenon.category_id == category_id,
                                                       Phenomenon.name == phenomenon))
    if found is not None:
        return found
    new_phenomenon = Phenomenon(category_id=category_id, name=phenomenon)
    session.add(new_phenomenon)
    session.flush()
    return new_phenomenon.id


def place(session: Session, phenomenon: int | None) -> tuple[str | None, str | None]:
    """(category, phenomenon) names of a phenomenon id."""
    if phenomenon is None:
        return None, None
    row = session.execute(select(Category.name, Phenomenon.name).join(Phenomenon.category)
                          .where(Phenomenon.id == phenomenon)).one()
    return row[0], row[1]


def remove_empty_phenomena(session: Session, suite_id: int) -> None:
    """Moving, merging or removing items may leave a phenomenon or category without items; it goes with them."""
    used = select(Item.phenomenon_id).where(Item.suite_id == suite_id, Item.phenomenon_id.is_not(None))
    category_ids = select(Category.id).where(Category.suite_id == suite_id)
    session.execute(delete(Phenomenon).where(Phenomenon.category_id.in_(category_ids),
                                             Phenomenon.id.not_in(used)))
    session.execute(delete(Category).where(Category.suite_id == suite_id,
                                           Category.id.not_in(select(Phenomenon.category_id))))


def _category(session: Session, suite_id: int, suite_name: str, name: str) -> Category:
    found = session.scalar(select(Category).where(Category.suite_id == suite_id, Category.name == name))
    if found is None:
        raise TsqeError(f"no category {name!r} in suite {suite_name!r}")
    return found


def _phenomenon(session: Session, category: Category, suite_name: str, name: str) -> Phenomenon:
    found = session.scalar(select(Phenomenon).where(Phenomenon.category_id == category.id, Phenomenon.name == name))
    if found is None:
        raise TsqeError(f"no phenomenon {name!r} in category {category.name!r} of suite {suite_name!r}")
    return found


def _items_in(session: Session, phenomenon_ids: Sequence[int]) -> int:
    return session.scalar(select(func.count()).select_from(Item).where(Item.phenomenon_id.in_(phenomenon_ids))) or 0


def rename_category(db: Database, old: str, new: str, *, suite_name: str | None = None, author: str) -> int:
    """Rename a category; the number of items in it. Refused when ``new`` exists (merge instead)."""
    author = check_author(author)
    new = _name(new, "category")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        category = _category(session, suite.id, suite.name, old)
        if new == category.name:
            raise TsqeError(f"category {old!r} already has that name")
        if session.scalar(select(Category.id).where(Category.suite_id == suite.id, Category.name == new)):
            raise TsqeError(f"suite {suite.name!r} already has a category {new!r}: merge the two instead")
        items = _items_in(session, [p.id for p in category.phenomena])
        category.name = new
        record(session, [Change(suite.id, None, "category", category.id, "rename", author, {"name": old},
                                {"name": new, "items": items}, None)])
        return items


def merge_categories(db: Database, sources: Sequence[str], target: str, *, suite_name: str | None = None,
                     author: str) -> int:
    """Move every phenomenon of the ``sources`` categories into ``target`` (created when new; phenomena of the
    same name become one) and remove the sources; the number of items moved."""
    author = check_author(author)
    target = _name(target, "category")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        moving = [_category(session, suite.id, suite.name, name) for name in dict.fromkeys(sources)
                  if name != target]
        if not moving:
            raise TsqeError("name at least one category other than the target to merge into it")
        items = _items_in(session, [p.id for category in moving for p in category.phenomena])
        into = session.scalar(select(Category).where(Category.suite_id == suite.id, Category.name == target))
        if into is None:
            into = Category(suite_id=suite.id, name=target)
            session.add(into)
            session.flush()
        names = [category.name for category in moving]
        for category in moving:
            for phenomenon in list(category.phenomena):
                _merge_phenomenon_into(session, phenomenon, into.id, phenomenon.name)
            # Core, not session.delete: the category's loaded collection still lists the phenomena that moved
            session.execute(delete(Category).where(Category.id == category.id)
                            .execution_options(synchronize_session=False))
            session.expunge(category)
        record(session, [Change(suite.id, None, "category", into.id, "merge", author,
                                {"names": names}, {"name": target, "items": items}, None)])
        return items


def _merge_phenomenon_into(session: Session, phenomenon: Phenomenon, category_id: int, name: str) -> None:
    """Put ``phenomenon``'s items under ``name`` in ``category_id``: the phenomenon moves there, or joins the one
    of that name already there."""
    existing = session.scalar(select(Phenomenon.id).where(Phenomenon.category_id == category_id,
                                                          Phenomenon.name == name, Phenomenon.id != phenomenon.id))
    if existing is None:
        phenomenon.category_id = category_id
        phenomenon.name = name
        session.flush()
        return
    session.execute(update(Item).where(Item.phenomenon_id == phenomenon.id).values(phenomenon_id=existing)
                    .execution_options(synchronize_session=False))
    session.execute(delete(Phenomenon).where(Phenomenon.id == phenomenon.id)
                    .execution_options(synchronize_session=False))
    session.expunge(phenomenon)


def rename_phenomenon(db: Database, category: str, old: str, new: str, *, suite_name: str | None = None,
                      author: str) -> int:
    """Rename a phenomenon within its category; the number of items in it. Refused when ``new`` exists there."""
    author = check_author(author)
    new = _name(new, "phenomenon")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        phenomenon = _phenomenon(session, _category(session, suite.id, suite.name, category), suite.name, old)
        if new == phenomenon.name:
            raise TsqeError(f"phenomenon {old!r} already has that name")
        if session.scalar(select(Phenomenon.id).where(Phenomenon.category_id == phenomenon.category_id,
                                                      Phenomenon.name == new)):
            raise TsqeError(f"category {category!r} already has a phenomenon {new!r}: merge the two instead")
        items = _items_in(session, [phenomenon.id])
        phenomenon.name = new
        record(session, [Change(suite.id, None, "phenomenon", phenomenon.id, "rename", author,
                                {"category": category, "name": old},
                                {"category": category, "name": new, "items": items}, None)])
        return items


def merge_phenomena(db: Database, category: str, sources: Sequence[str], target: str, *,
                    suite_name: str | None = None, author: str) -> int:
    """Move the items of the ``sources`` phenomena of ``category`` into ``target`` there (created when new) and
    remove the sources; the number of items moved."""
    author = check_author(author)
    target = _name(target, "phenomenon")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        parent = _category(session, suite.id, suite.name, category)
        moving = [_phenomenon(session, parent, suite.name, name) for name in dict.fromkeys(sources) if name != target]
        if not moving:
            raise TsqeError("name at least one phenomenon other than the target to merge into it")
        items = _items_in(session, [p.id for p in moving])
        into = phenomenon_id(session, suite.id, category, target)
        session.execute(update(Item).where(Item.phenomenon_id.in_([p.id for p in moving]))
                        .values(phenomenon_id=into).execution_options(synchronize_session=False))
        names = [p.name for p in moving]
        for phenomenon in moving:
            session.delete(phenomenon)
        session.flush()
        record(session, [Change(suite.id, None, "phenomenon", into, "merge", author,
                                {"category": category, "names": names},
                                {"category": category, "name": target, "items": items}, None)])
        return items
