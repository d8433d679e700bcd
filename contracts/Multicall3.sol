// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/**
 * The part of Multicall3's interface that our tools use, for local test chains, placed with
 * `anvil_setCode` at the address where Multicall3 lives on Base Sepolia and most other chains
 * (0xcA11bde05977b3631167028862bE2a173976CA11). viem's `multicall` calls `aggregate3`; the x402
 * facilitator calls `tryAggregate` to tell why a payment failed (used nonce, low balance, wrong name).
 * A fresh anvil has no code there, so without this those calls fail and the reasons get lost.
 *
 * Calls use CALL, not STATICCALL, as the original does, so a simulated batch may change state.
 * No constructor and no storage.
 */
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate(Call[] calldata calls) external returns (uint256 blockNumber, bytes[] memory returnData) {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(success, "Multicall3: call failed");
            returnData[i] = ret;
        }
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }

    function aggregate3(Call3[] calldata calls) external returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(success || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getCurrentBlockTimestamp() external view returns (uint256) {
        return block.timestamp;
    }

    function getChainId() external view returns (uint256) {
        return block.chainid;
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }
}
