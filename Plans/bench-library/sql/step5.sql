-- Library 5 -> 6: loan.note dropped.
BEGIN;
ALTER TABLE "loan" DROP COLUMN "note";
COMMIT;
