#!/usr/bin/env python3
"""Fills a School 1 store (made by `instar store create models/v1.yaml --store …`) with sample data.

Usage: sample-data.py STORE [ROWS]

ROWS (default 200) is the number of students; classes and courses are fixed. The first students
are fixed edge cases (no class, no courses, no birthday, duplicate and non-ASCII names, a class
name shared by two classes); the rest are generated with a fixed seed, so the same arguments always
give the same store. Dates are ISO-8601 text in UTC, as the instar layout stores them.
"""
import random
import sqlite3
import sys

# (name, room)
CLASSES = [
    ("1A", "R101"),
    ("1B", None),
    ("Klasse 3ü", "Raum 7"),
    ("三年二班", "302"),
    ("1A", "Annex 2"),      # a second class with the same name
    ("Empty Class", "R000"),  # no students
]
# (title, credits)
COURSES = [
    ("Mathematics", 6),
    ("Physik", 4),
    ("Histoire-Géographie", 3),
    ("Music", 0),
    ("Latin", 2),           # nobody takes it
]
# (name, birthday, class index or None, course indexes)
EDGE_STUDENTS = [
    ("Anna", "2010-05-03T00:00:00.000Z", 0, [0, 1]),
    ("Anna", "2011-01-15T00:00:00.000Z", 1, [0]),          # same name, other student
    ("Zoë Ångström", "2010-12-31T23:59:59.000Z", 2, [2, 3]),
    ("李雷", None, 3, [0, 1, 2, 3]),
    ("Seán O'Brien", "2009-07-04T12:00:00.000Z", 4, []),   # the other "1A"; no courses
    ("Nobody's Student", None, None, [1]),                  # no class
    ("Łukasz \"Luke\" Nowak", "2010-02-28T00:00:00.000Z", None, []),  # no class, no courses
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    rng = random.Random(20261121)
    students = list(EDGE_STUDENTS[:total])
    first = ["Mia", "Noah", "Émile", "Ingrid", "Kenji", "Fatima", "Olav", "Chloé", "Davide", "Søren"]
    for i in range(len(students), total):
        name = f"{rng.choice(first)} {i + 1}"
        birthday = None if rng.random() < 0.1 else f"20{rng.randint(8, 12):02d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00.000Z"
        clazz = None if rng.random() < 0.1 else rng.randrange(0, 5)
        courses = sorted(rng.sample(range(4), rng.randint(0, 3)))
        students.append((name, birthday, clazz, courses))

    db = sqlite3.connect(path)
    with db:
        class_pks = []
        for name, room in CLASSES:
            class_pks.append(db.execute('INSERT INTO "ClassEntity" ("name", "room") VALUES (?, ?)', (name, room)).lastrowid)
        course_pks = []
        for title, credits in COURSES:
            course_pks.append(db.execute('INSERT INTO "CourseEntity" ("title", "credits") VALUES (?, ?)', (title, credits)).lastrowid)
        for name, birthday, clazz, courses in students:
            pk = db.execute(
                'INSERT INTO "StudentEntity" ("name", "birthday", "clazz") VALUES (?, ?, ?)',
                (name, birthday, None if clazz is None else class_pks[clazz])).lastrowid
            # Join table of CourseEntity.students ↔ StudentEntity.courses, named after the side that
            # sorts first; each column is named after the relationship leading to its side.
            db.executemany(
                'INSERT INTO "CourseEntity_students" ("courses", "students") VALUES (?, ?)',
                [(course_pks[c], pk) for c in courses])
    db.close()
    print(f"{path}: {len(CLASSES)} classes, {len(COURSES)} courses, {len(students)} students")


if __name__ == "__main__":
    main()
