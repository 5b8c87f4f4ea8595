-- Library 1 -> 2: member.phone added.
BEGIN;
ALTER TABLE "member" ADD COLUMN "phone" TEXT;
COMMIT;
