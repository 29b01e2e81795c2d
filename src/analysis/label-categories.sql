-- w_label_categories: the label categories of the model registry (src/domain/model.ts
-- LABEL_CATEGORIES), filled by analyze before the steps run: each category's AML
-- risk and whether its labels propagate across a wallet cluster.
CREATE OR REPLACE TEMP TABLE w_label_categories (
  category VARCHAR PRIMARY KEY,
  risk INTEGER NOT NULL,
  propagates BOOLEAN NOT NULL
);
