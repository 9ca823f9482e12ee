package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;

/**
 * A store read met a row no legal sequence of operations produces (see {@link ImpossibleRow}); the operation
 * that needed the row changed nothing. Rows of other requests and jobs stay usable, and
 * {@code JobQueue.tick()} reports such rows instead of failing.
 */
public final class ImpossibleRowException extends QueueStoreException {
  private static final long serialVersionUID = 1L;

  private final ImpossibleRow row;

  /**
   * Creates the exception.
   *
   * @param row the impossible row
   */
  public ImpossibleRowException(ImpossibleRow row) {
    super(Checks.present(row, "impossible row").message());
    this.row = row;
  }

  /**
   * Creates the exception with the error that mapping the row raised.
   *
   * @param row the impossible row
   * @param cause the mapping error
   */
  public ImpossibleRowException(ImpossibleRow row, Throwable cause) {
    super(Checks.present(row, "impossible row").message(), cause);
    this.row = row;
  }

  /**
   * The row, its column, value and the rule it breaks.
   *
   * @return the row
   */
  public ImpossibleRow row() {
    return row;
  }
}
